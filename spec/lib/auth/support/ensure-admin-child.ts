/**
 * Child process of the two-process `ensure_admin` test: connects to the database given as the
 * first argument, says `ready`, waits for `go` on stdin (so both processes start together), calls
 * `ensure_admin`, and prints the result as JSON.
 */
import { once } from 'node:events';
import { MikroOrmAdapter } from '../../../../adapters/mikro-orm/index.js';
import { AuthRouter } from '../../../../lib/auth/auth-router.js';
import { authEntities, User } from './entities.js';
import { SECRET } from './harness.js';

const url = process.argv[2];
if (url === undefined) throw new Error('usage: ensure-admin-child <database url>');
const adapter = await MikroOrmAdapter.connect({ url, entities: authEntities });
const auth = new AuthRouter({ user_model: User, secret: SECRET, bcrypt_cost: 4, adapter });
try {
  process.stdout.write('ready\n');
  process.stdin.setEncoding('utf8');
  let input = '';
  while (!input.includes('go')) {
    const [chunk] = (await once(process.stdin, 'data')) as [string];
    input += chunk;
  }
  const result = await auth.ensure_admin({
    db: adapter.orm.em.fork(),
    username: 'root',
    password: 'root-password',
    email: 'root@example.com',
  });
  process.stdout.write(
    `${JSON.stringify({ created: result.created, id: result.user.id, is_admin: result.user.is_admin })}\n`,
  );
} finally {
  await adapter.close();
  process.stdin.destroy();
}
