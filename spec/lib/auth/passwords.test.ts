import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Argon2idHasher, BcryptHasher, type PasswordHasher } from '../../../lib/auth/hashers.js';
import { passwordProblem } from '../../../lib/auth/password-policy.js';
import { hasherFrom, Passwords } from '../../../lib/auth/passwords.js';
import { ConfigurationError } from '../../../lib/errors.js';

// Cheap parameters keep the suite fast; the defaults are checked separately.
const cheapArgon = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

describe('password rule', () => {
  it('needs at least 8 characters, counted as code points', () => {
    assert.match(passwordProblem('seven77') ?? '', /at least 8/);
    assert.equal(passwordProblem('eight888'), undefined);
    assert.equal(passwordProblem('😀'.repeat(8)), undefined, '8 emoji are 8 characters (32 bytes)');
    assert.match(passwordProblem('😀'.repeat(7)) ?? '', /at least 8/);
  });

  it('refuses more than 72 bytes of UTF-8 (bcrypt would ignore the rest)', () => {
    assert.equal(passwordProblem('a'.repeat(72)), undefined);
    assert.match(passwordProblem('a'.repeat(73)) ?? '', /72 bytes/);
    assert.match(passwordProblem('é'.repeat(37)) ?? '', /72 bytes/, '37 characters but 74 bytes');
    assert.equal(passwordProblem('é'.repeat(36)), undefined);
  });

  it('refuses what is not a string', () => {
    assert.equal(passwordProblem(12345678), 'must be a string');
    assert.equal(passwordProblem(undefined), 'must be a string');
  });
});

describe('BcryptHasher', () => {
  it('defaults to cost 12 and checks the cost', () => {
    assert.equal(new BcryptHasher().cost, 12);
    for (const cost of [3, 32, 4.5, Number.NaN]) {
      assert.throws(() => new BcryptHasher({ cost }), ConfigurationError);
    }
  });

  it('hashes as $2b$ with the cost, verifies, and refuses a wrong password', async () => {
    const hasher = new BcryptHasher({ cost: 4 });
    const hash = await hasher.hash('correct horse');
    assert.match(hash, /^\$2b\$04\$/);
    assert.equal(hasher.recognizes(hash), true);
    assert.equal(await hasher.verify('correct horse', hash), true);
    assert.equal(await hasher.verify('correct horsf', hash), false);
    assert.equal(await hasher.verify('correct horse', 'not a hash'), false);
  });

  it('calls a hash of another cost outdated', async () => {
    const hash = await new BcryptHasher({ cost: 4 }).hash('password1');
    assert.equal(new BcryptHasher({ cost: 4 }).isOutdated(hash), false);
    assert.equal(new BcryptHasher({ cost: 5 }).isOutdated(hash), true);
    assert.equal(new BcryptHasher({ cost: 4 }).isOutdated('$2b$04$garbage'), true);
  });
});

describe('Argon2idHasher', () => {
  it('hashes as argon2id with OWASP defaults', () => {
    const hasher = new Argon2idHasher();
    assert.deepEqual([hasher.memoryCost, hasher.timeCost, hasher.parallelism], [19456, 2, 1]);
    assert.throws(() => new Argon2idHasher({ timeCost: 0 }), ConfigurationError);
    assert.throws(() => new Argon2idHasher({ memoryCost: 4, parallelism: 1 }), ConfigurationError);
  });

  it('verifies and detects other parameters as outdated', async () => {
    const hasher = new Argon2idHasher(cheapArgon);
    const hash = await hasher.hash('password1');
    assert.match(hash, /^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    assert.equal(await hasher.verify('password1', hash), true);
    assert.equal(await hasher.verify('password2', hash), false);
    assert.equal(hasher.isOutdated(hash), false);
    assert.equal(new Argon2idHasher({ ...cheapArgon, timeCost: 2 }).isOutdated(hash), true);
    assert.equal(await hasher.verify('password1', '$2b$04$notargon'), false);
  });
});

describe('Passwords', () => {
  it('picks the scheme from the stored hash', async () => {
    const bcryptHash = await new BcryptHasher({ cost: 4 }).hash('password1');
    const argonHash = await new Argon2idHasher(cheapArgon).hash('password1');
    const passwords = new Passwords(new BcryptHasher({ cost: 4 }));
    assert.deepEqual(await passwords.check('password1', bcryptHash), { ok: true, rehash: false });
    assert.deepEqual(
      await passwords.check('password1', argonHash),
      { ok: true, rehash: true },
      'other scheme: re-hash',
    );
    assert.deepEqual(await passwords.check('password2', argonHash), { ok: false, rehash: false });
  });

  it('asks for a re-hash when the cost changed, only after a right password', async () => {
    const old = await new BcryptHasher({ cost: 4 }).hash('password1');
    const passwords = new Passwords(new BcryptHasher({ cost: 5 }));
    assert.deepEqual(await passwords.check('password1', old), { ok: true, rehash: true });
    assert.deepEqual(await passwords.check('password9', old), { ok: false, rehash: false });
    const argon = new Passwords(new Argon2idHasher(cheapArgon));
    assert.deepEqual(await argon.check('password1', old), { ok: true, rehash: true }, 'bcrypt → argon2id');
  });

  it('fails a missing or unknown hash', async () => {
    const passwords = new Passwords(new BcryptHasher({ cost: 4 }));
    for (const stored of [undefined, null, '', 'plaintext', 42]) {
      assert.deepEqual(await passwords.check('password1', stored), { ok: false, rehash: false });
    }
  });

  it('checks an unknown user against a dummy hash of the current scheme and cost', async () => {
    const hasher = new BcryptHasher({ cost: 5 });
    const seen: string[] = [];
    const spy: PasswordHasher = {
      scheme: hasher.scheme,
      hash: (password) => hasher.hash(password),
      recognizes: (stored) => hasher.recognizes(stored),
      isOutdated: (stored) => hasher.isOutdated(stored),
      verify: (password, stored) => {
        seen.push(stored);
        return hasher.verify(password, stored);
      },
    };
    const passwords = new Passwords(spy);
    assert.deepEqual(await passwords.check('password2', undefined), { ok: false, rehash: false });
    assert.deepEqual(await passwords.check('password2', 'garbage'), { ok: false, rehash: false });
    assert.equal(seen.length, 2, 'one real verification per unknown user');
    for (const stored of seen) assert.match(stored, /^\$2b\$05\$/);
    assert.equal(seen[0], seen[1], 'the dummy hash is made once');
  });

  it('spends as much CPU on an unknown user as on a wrong password', async () => {
    const hasher = new BcryptHasher({ cost: 8 });
    const passwords = new Passwords(hasher);
    const stored = await hasher.hash('password1');
    await passwords.warmUp();
    // CPU time of this process (bcrypt runs on its thread pool): other processes do not disturb it.
    const cpu = async (run: () => Promise<unknown>): Promise<number> => {
      const start = process.cpuUsage();
      await run();
      const used = process.cpuUsage(start);
      return used.user + used.system;
    };
    const wrong: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 7; i++) {
      wrong.push(await cpu(() => passwords.check('password2', stored)));
      unknown.push(await cpu(() => passwords.check('password2', undefined)));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[3] as number;
    const ratio = median(unknown) / median(wrong);
    assert.ok(ratio > 0.5 && ratio < 2, `unknown/wrong CPU time ratio ${ratio.toFixed(2)}`);
  });

  it('takes a scheme name or a hasher object', () => {
    assert.ok(hasherFrom(undefined) instanceof BcryptHasher);
    assert.ok(hasherFrom('argon2id') instanceof Argon2idHasher);
    const custom = new BcryptHasher({ cost: 6 });
    assert.equal(hasherFrom(custom), custom);
    assert.throws(() => hasherFrom('md5' as 'bcrypt'), ConfigurationError);
  });
});
