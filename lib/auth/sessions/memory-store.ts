/**
 * In-memory refresh-token store: the default, for development and single-process apps. Tokens
 * die with the process and are not shared between instances (use the adapter or Redis store
 * there). Memory is bounded: when full, expired records go first, then the oldest.
 */
import { ConfigurationError } from '../../errors.js';
import type { RefreshRecord, RefreshTokenStore, StoreScope } from './store.js';

/** Options of `MemoryRefreshStore`. */
export interface MemoryRefreshStoreOptions {
  /** Most records kept (default 100,000). */
  readonly maxRecords?: number;
  /** Clock in milliseconds (tests pass a fake one). */
  readonly now?: () => number;
}

/** A refresh-token store for one process. */
export class MemoryRefreshStore implements RefreshTokenStore {
  readonly kind = 'memory';
  /** Most records kept. */
  readonly maxRecords: number;
  private readonly records = new Map<string, RefreshRecord>();
  private readonly families = new Map<string, Set<string>>();
  private readonly now: () => number;

  constructor(options: MemoryRefreshStoreOptions = {}) {
    const max = options.maxRecords ?? 100_000;
    if (!Number.isInteger(max) || max < 1) {
      throw new ConfigurationError(
        `MemoryRefreshStore maxRecords must be a positive integer, got ${String(max)}.`,
      );
    }
    this.maxRecords = max;
    this.now = options.now ?? Date.now;
  }

  /** Number of records held (for tests and metrics). */
  get size(): number {
    return this.records.size;
  }

  async insert(_scope: StoreScope, record: RefreshRecord): Promise<boolean> {
    if (this.records.has(record.id)) return false;
    this.makeRoom();
    this.records.set(record.id, record);
    let members = this.families.get(record.family);
    if (members === undefined) {
      members = new Set();
      this.families.set(record.family, members);
    }
    members.add(record.id);
    return true;
  }

  async find(_scope: StoreScope, id: string): Promise<RefreshRecord | undefined> {
    return this.records.get(id);
  }

  async revokeFamily(_scope: StoreScope, family: string): Promise<void> {
    for (const id of this.families.get(family) ?? []) this.records.delete(id);
    this.families.delete(family);
  }

  async revokeUser(scope: StoreScope, user: string): Promise<void> {
    const families = new Set<string>();
    for (const record of this.records.values()) if (record.user === user) families.add(record.family);
    for (const family of families) await this.revokeFamily(scope, family);
  }

  private remove(record: RefreshRecord): void {
    this.records.delete(record.id);
    const members = this.families.get(record.family);
    members?.delete(record.id);
    if (members?.size === 0) this.families.delete(record.family);
  }

  private makeRoom(): void {
    if (this.records.size < this.maxRecords) return;
    const now = this.now();
    for (const record of [...this.records.values()]) if (record.expiresAt <= now) this.remove(record);
    // Map order is insertion order: the oldest records go first.
    for (const record of this.records.values()) {
      if (this.records.size < this.maxRecords) break;
      this.remove(record);
    }
  }
}
