/**
 * Usernames (issue 15, "look-alike usernames"): one normal form (NFKC, case-folded by default) for
 * storage, uniqueness, login, the throttle and `ensure_admin`, and 422 for names built to pass for
 * another, on every database target.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UsernameRules, usernameCaseFrom } from '../../../lib/auth/username.js';
import { ConfigurationError } from '../../../lib/errors.js';
import { databaseTargets, requireTarget } from '../../support/databases.js';
import { type AuthFixture, call, startAuthApp } from './support/harness.js';

/** The look-alikes of `admin` the outside review registered while `admin` existed. */
export const ADMIN_LOOK_ALIKES: readonly (readonly [string, string])[] = [
  ['capitalised', 'Admin'],
  ['upper case', 'ADMIN'],
  ['full-width letters', 'ａｄｍｉｎ'],
  ['a zero-width space', 'admin\u200b'],
  ['a Cyrillic а', '\u0430dmin'],
  ['a leading space', ' admin'],
  ['a trailing tab', 'admin\t'],
  ['a combining acute accent', 'admin\u0301'],
  ['a combining overlay', 'a\u0336dmin'],
  ['a combining grapheme joiner', 'admin\u034f'],
  ['a right-to-left override', '\u202eadmin'],
  ['a variation selector', 'admin\ufe0f'],
  ['a trailing no-break space', 'admin\u00a0'],
];

describe('UsernameRules', () => {
  const rules = new UsernameRules();

  it('folds case and compatibility forms to one stored name', () => {
    for (const name of ['admin', 'Admin', 'ADMIN', 'ａｄｍｉｎ', 'ＡＤＭＩＮ']) {
      assert.deepEqual(rules.check(name), { ok: true, name: 'admin' }, name);
    }
    assert.deepEqual(rules.check('STRASSE'), rules.check('straße'));
    assert.deepEqual(rules.check('ﬁnance'), { ok: true, name: 'finance' });
    assert.deepEqual(rules.check('José'), { ok: true, name: 'josé' });
  });

  it('refuses every look-alike of admin that does not fold onto it', () => {
    for (const [what, name] of ADMIN_LOOK_ALIKES) {
      const result = rules.check(name);
      assert.ok(!result.ok ? true : result.name === 'admin', `${what}: ${JSON.stringify(result)}`);
    }
  });

  it('refuses control, format and invisible characters, and odd whitespace', () => {
    for (const name of ['a\u0000b', 'a\u0007b', 'a\u200db', 'a\u2066b', 'a\u00adb', '\u3164', 'a\u2028b']) {
      assert.equal(rules.check(name).ok, false, JSON.stringify(name));
    }
    for (const name of [' a', 'a ', 'a  b', 'a\u3000', '\u00a0a']) {
      assert.equal(rules.check(name).ok, false, JSON.stringify(name));
    }
    assert.deepEqual(rules.check('john smith'), { ok: true, name: 'john smith' });
  });

  it('refuses letters of two look-alike alphabets in one name, and allows one alphabet or CJK with Latin', () => {
    for (const name of ['\u0430dmin', 'Ωmega', 'p\u0430ypal', 'Δelta']) {
      assert.match(rules.check(name).ok ? '' : 'refused', /refused/, name);
    }
    for (const name of ['пользователь', 'ελληνικά', '用户名', 'ユーザー名abc', 'user_42', 'o\u2019brien']) {
      assert.equal(rules.check(name).ok, true, name);
    }
  });

  it('gives stored names that check to themselves (the normal form is stable)', () => {
    for (let code = 0x20; code < 0x30000; code++) {
      if (code >= 0xd800 && code < 0xe000) continue;
      const first = rules.check(`a${String.fromCodePoint(code)}`);
      if (!first.ok) continue;
      assert.deepEqual(rules.check(first.name), first, `U+${code.toString(16)}`);
    }
  });

  it("keeps case with 'sensitive', still in NFKC and with the same refusals", () => {
    const sensitive = new UsernameRules('sensitive');
    assert.deepEqual(sensitive.check('Admin'), { ok: true, name: 'Admin' });
    assert.deepEqual(sensitive.check('ＡＤＭＩＮ'), { ok: true, name: 'ADMIN' });
    assert.equal(sensitive.check('admin\u200b').ok, false);
    assert.equal(usernameCaseFrom(undefined), 'insensitive');
    assert.equal(usernameCaseFrom('sensitive'), 'sensitive');
    assert.throws(() => usernameCaseFrom('lower'), ConfigurationError);
  });

  it('keys a name no user can have by its NFKC fold, so the throttle still counts it', () => {
    assert.equal(rules.lookupKey('ADMIN'), 'admin');
    assert.equal(rules.lookupKey('ADMIN\u200b'), 'admin\u200b');
  });
});

for (const target of databaseTargets()) {
  describe(`usernames over HTTP on ${target}`, await requireTarget(target), () => {
    let fx: AuthFixture;
    before(async () => {
      fx = await startAuthApp(target, { throttle: { address: { attempts: 10_000, window: 60 } } });
      await fx.auth.ensure_admin({
        username: 'admin',
        password: 'admin-password',
        email: 'admin@example.com',
      });
    });
    after(() => fx?.close());

    it('refuses (422) or collides (409) for every look-alike of admin', async () => {
      let n = 0;
      for (const [what, name] of ADMIN_LOOK_ALIKES) {
        n += 1;
        const response = await call(fx.server, 'POST', '/register', {
          json: { username: name, email: `look${n}@example.com`, password: 'password-1' },
        });
        assert.ok([409, 422].includes(response.status), `${what}: ${response.status}`);
        if (response.status === 422)
          assert.equal((response.body.errors as { path: string }[])[0]?.path, 'username');
      }
    });

    it('stores the normal form and logs in under any case of it', async () => {
      const created = await call(fx.server, 'POST', '/register', {
        json: { username: 'ＭａｒｉｅＣｕｒｉｅ', email: 'marie@example.com', password: 'password-1' },
      });
      assert.equal(created.status, 201);
      assert.equal(created.body.username, 'mariecurie');
      for (const name of ['mariecurie', 'MarieCurie', 'ＭＡＲＩＥＣＵＲＩＥ']) {
        const login = await call(fx.server, 'POST', '/login', {
          json: { username: name, password: 'password-1' },
        });
        assert.equal(login.status, 200, name);
      }
      const wrong = await call(fx.server, 'POST', '/login', {
        json: { username: 'marie\u200bcurie', password: 'password-1' },
      });
      assert.equal(wrong.status, 401);
    });

    it('makes ensure_admin find the admin under another case instead of creating a second', async () => {
      const again = await fx.auth.ensure_admin({ username: 'ADMIN', password: 'other-password-1' });
      assert.equal(again.created, false);
      assert.equal(again.user.username, 'admin');
      await assert.rejects(
        fx.auth.ensure_admin({ username: '\u0430dmin', password: 'other-password-1' }),
        ConfigurationError,
      );
    });

    it('never logs in a spelling whose normal form is another name, though the collation matches it', async () => {
      // MariaDB's utf8mb4_general_ci ignores accents, case and trailing spaces: each of these finds
      // `target`, and each would have a throttle counter of its own.
      const created = await call(fx.server, 'POST', '/register', {
        json: { username: 'target', email: 'target@example.com', password: 'target password' },
      });
      assert.equal(created.status, 201);
      for (let i = 0; i < 5; i++) {
        const failed = await call(fx.server, 'POST', '/login', {
          json: { username: 'target', password: 'wrong password' },
        });
        assert.equal(failed.status, 401);
      }
      const blocked = await call(fx.server, 'POST', '/login', {
        json: { username: 'target', password: 'target password' },
      });
      assert.equal(blocked.status, 429);
      for (const name of ['tärget', 'TÄRGET', 'tårget', 'targét', 'target ', 'TARGET ']) {
        const login = await call(fx.server, 'POST', '/login', {
          json: { username: name, password: 'target password' },
        });
        assert.equal(login.status, 401, JSON.stringify(name));
        assert.equal(login.body.code, 'invalid_credentials');
      }
    });

    it("keeps case apart at login with 'sensitive', whatever the collation", async () => {
      const sensitive = await fx.variant({ username_case: 'sensitive' });
      const created = await call(sensitive.server, 'POST', '/register', {
        json: { username: 'CaseKept', email: 'casekept@example.com', password: 'password-1' },
      });
      assert.equal(created.status, 201);
      const exact = await call(sensitive.server, 'POST', '/login', {
        json: { username: 'CaseKept', password: 'password-1' },
      });
      assert.equal(exact.status, 200);
      for (const name of ['casekept', 'CASEKEPT', 'CaseKépt']) {
        const other = await call(sensitive.server, 'POST', '/login', {
          json: { username: name, password: 'password-1' },
        });
        assert.equal(other.status, 401, name);
      }
    });

    it('counts failures under any spelling of a name on one throttle counter', async () => {
      const limited = await fx.variant({ throttle: { username: { attempts: 3, window: 60 } } });
      for (let i = 0; i < 3; i++) {
        const failed = await call(limited.server, 'POST', '/login', {
          json: { username: 'ADMIN', password: 'wrong-password' },
        });
        assert.equal(failed.status, 401);
      }
      // The same address and the same user under another spelling: one pair counter.
      const blocked = await call(limited.server, 'POST', '/login', {
        json: { username: 'admin', password: 'admin-password' },
      });
      assert.equal(blocked.status, 429);
      assert.ok(Number(blocked.headers.get('retry-after')) > 0);
    });
  });
}
