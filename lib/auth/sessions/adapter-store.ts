/**
 * Refresh tokens stored through the application's adapter, in a table of their own (a model built
 * with `RefreshTokenMixin`). Works on every database and with several instances. The atomic claim
 * of a rotation is the primary key: inserting an id that exists fails with a unique violation,
 * which the adapter reports as `conflict`. Expired rows are deleted in the background, at most
 * once per `purgeIntervalSeconds`.
 */
import { ApiError, ConfigurationError } from '../../errors.js';
import { PRIMARY_READS } from '../../http/session.js';
import type { ListQuery, ModelClass, OrmAdapter, RawRecord } from '../../types.js';
import { hasRefreshTokenMixin, REFRESH_ID_LENGTH } from './refresh-token-model.js';
import type { RefreshRecord, RefreshTokenStore, StoreScope } from './store.js';

/** Options of `AdapterRefreshStore`. */
export interface AdapterRefreshStoreOptions {
  /** The model built with `RefreshTokenMixin` and registered with the ORM. */
  readonly model: ModelClass;
  /** Seconds between two purges of expired rows (default 3600; 0 turns purging off). */
  readonly purgeIntervalSeconds?: number;
}

const BATCH = 500;

const iso = (ms: number): string => new Date(ms).toISOString();

/** A refresh-token store in the application's database. */
export class AdapterRefreshStore implements RefreshTokenStore {
  readonly kind = 'adapter';
  /** The refresh-token model. */
  readonly model: ModelClass;
  private readonly purgeIntervalMs: number;
  private nextPurge = 0;

  constructor(options: AdapterRefreshStoreOptions) {
    const model = options?.model;
    if (typeof model !== 'function' || !hasRefreshTokenMixin(model)) {
      throw new ConfigurationError(
        'AdapterRefreshStore needs `model`: a class built with RefreshTokenMixin(FrameworkModel) and added to the ORM.',
      );
    }
    const interval = options.purgeIntervalSeconds ?? 3600;
    if (!Number.isInteger(interval) || interval < 0) {
      throw new ConfigurationError('AdapterRefreshStore purgeIntervalSeconds must be a whole number ≥ 0.');
    }
    this.model = model;
    this.purgeIntervalMs = interval * 1000;
  }

  /** Checks the ORM knows the model and that its primary key is a long enough string `id`. */
  check(scope: StoreScope): void {
    const description = scope.adapter.describe(this.model);
    const key = description.fieldsByName.get(description.primaryKey);
    const stringy = key !== undefined && (key.type === 'string' || key.type === 'text');
    if (
      description.primaryKey !== 'id' ||
      !stringy ||
      (key.maxLength !== undefined && key.maxLength < REFRESH_ID_LENGTH)
    ) {
      throw new ConfigurationError(
        `${description.name}: the refresh-token model needs a string primary key \`id\` of at least ${REFRESH_ID_LENGTH} characters.`,
      );
    }
  }

  async insert(scope: StoreScope, record: RefreshRecord): Promise<boolean> {
    const { adapter } = scope;
    try {
      await adapter.create(adapter.openSession(PRIMARY_READS), this.model, {
        id: record.id,
        family: record.family,
        user_id: record.user,
        secret_hash: record.secretHash,
        issued_at: iso(record.issuedAt),
        expires_at: iso(record.expiresAt),
      });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'conflict') return false;
      throw error;
    }
    this.purgeLater(adapter, record.issuedAt);
    return true;
  }

  async find(scope: StoreScope, id: string): Promise<RefreshRecord | undefined> {
    const row = await scope.adapter.get(scope.adapter.openSession(PRIMARY_READS), this.model, id);
    return row === undefined ? undefined : recordOf(row);
  }

  async revokeFamily(scope: StoreScope, family: string): Promise<void> {
    await this.deleteWhere(scope.adapter, { field: 'family', op: '$eq', value: family });
  }

  async revokeUser(scope: StoreScope, user: string): Promise<void> {
    await this.deleteWhere(scope.adapter, { field: 'user_id', op: '$eq', value: user });
  }

  /** Deletes every row that expired before `nowMs`; resolves with how many. */
  async purgeExpired(scope: StoreScope, nowMs = Date.now()): Promise<number> {
    return this.deleteWhere(scope.adapter, { field: 'expires_at', op: '$lt', value: iso(nowMs) });
  }

  private purgeLater(adapter: OrmAdapter, nowMs: number): void {
    if (this.purgeIntervalMs === 0 || nowMs < this.nextPurge) return;
    this.nextPurge = nowMs + this.purgeIntervalMs;
    // Hygiene only: a failed purge is retried at the next interval, never fails a login.
    void this.purgeExpired({ adapter }, nowMs).catch(() => {});
  }

  private async deleteWhere(adapter: OrmAdapter, filter: ListQuery['filters'][number]): Promise<number> {
    const session = adapter.openSession(PRIMARY_READS);
    let deleted = 0;
    for (;;) {
      const { rows } = await adapter.list(session, this.model, {
        filters: [filter],
        sort: [],
        limit: BATCH,
        offset: 0,
        withTotal: false,
      });
      let batch = 0;
      for (const row of rows) if (await adapter.delete(session, this.model, String(row.id))) batch += 1;
      deleted += batch;
      // A full batch of rows someone else deleted meanwhile must not loop forever.
      if (rows.length < BATCH || batch === 0) return deleted;
    }
  }
}

function recordOf(row: Readonly<RawRecord>): RefreshRecord {
  return {
    id: String(row.id),
    family: String(row.family),
    user: String(row.user_id),
    secretHash: String(row.secret_hash),
    issuedAt: Date.parse(String(row.issued_at)),
    expiresAt: Date.parse(String(row.expires_at)),
  };
}
