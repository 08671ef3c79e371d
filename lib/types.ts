/**
 * The types every other file of the core imports: the model description an adapter produces,
 * the `OrmAdapter` contract, list queries, policies and the request user.
 */
import type { Middleware, ParameterizedContext } from 'koa';

/** A class (or other token) an adapter recognises as a model; usually an entity class. */
// biome-ignore lint/suspicious/noExplicitAny: constructor parameters of user entities are unknown
export type ModelClass = abstract new (...args: any[]) => object;

/** The scalar kinds a field can have; each maps to one JSON Schema type and one query coercion. */
export type FieldType =
  | 'string'
  | 'text'
  | 'uuid'
  | 'integer'
  | 'bigint'
  | 'number'
  | 'decimal'
  | 'boolean'
  | 'date'
  | 'datetime'
  | 'time'
  | 'json'
  | 'enum'
  | 'object'
  | 'array';

/**
 * A many-to-one (or owning one-to-one) relation, exposed in JSON as the referenced record's
 * primary key, or as the record itself when a request names it in `include=`.
 */
export interface RelationDescription {
  /** A to-one relation held by this model (an owning one-to-one is described the same way). */
  readonly kind: 'many-to-one';
  /** Name of the referenced model (its class name). */
  readonly target: string;
  /** The referenced model class, when the adapter knows it. */
  readonly targetModel?: ModelClass;
  /** Primary key property of the referenced model. */
  readonly targetKey: string;
}

/**
 * A to-many relation of a model. It is not part of a record: a request names it in `include=` to
 * have the related records embedded, and a writable one is set as an array of target keys.
 */
export interface CollectionDescription {
  /** The relation's JSON name: its name in `include=` and, when writable, in request bodies. */
  readonly name: string;
  /** One-to-many (the target holds a many-to-one back to this model) or many-to-many. */
  readonly kind: 'one-to-many' | 'many-to-many';
  /** Name of the target model (its class name). */
  readonly target: string;
  /** The target model class. */
  readonly targetModel: ModelClass;
  /** Primary key field of the target model. */
  readonly targetKey: string;
  /** The type of the target's primary key (the type of each item of a write). */
  readonly targetKeyType: FieldType;
  /**
   * An integer key's range where its column's differs from a 32-bit integer's (MySQL/MariaDB's
   * unsigned keys, small integers), as the target's own key field states it: each item of a write
   * is held to it. Absent: a 32-bit integer's, as any integer field without `minimum`/`maximum`.
   */
  readonly targetKeyRange?: { readonly minimum: number; readonly maximum: number };
  /** For one-to-many: the target's many-to-one field that holds this model's key. */
  readonly inverseField?: string;
  /**
   * A client may set it on create and update as an array of target keys (many-to-many only);
   * the adapter replaces the whole set in the same transaction as the record.
   */
  readonly writable: boolean;
}

/**
 * What the database ignores when it compares two values of a text key (a MySQL/MariaDB or SQLite collation):
 * values equal but for these are one key to it. Each flag absent: not ignored.
 */
export interface TextComparison {
  /**
   * Upper and lower case (`_ci` collations: most letters of the BMP, not those `general_ci` and
   * `unicode_ci` keep apart); `'ascii'`: the letters A–Z only (SQLite's `NOCASE`).
   */
  readonly ignoresCase?: boolean | 'ascii';
  /**
   * What `ß` equals where case is ignored: `'s'` (MySQL/MariaDB `general_ci`, one character for
   * one) or `'ss'` (`unicode_ci`, `unicode_520_ci`); absent, `ß` is only itself.
   */
  readonly sharpS?: 's' | 'ss';
  /**
   * Accents (`_ai` and the older `_ci` collations): those of Latin and Greek letters (U+0300–U+036F
   * after NFD); marks elsewhere (Cyrillic `й`, Devanagari, `≠`) are compared, as collations may.
   */
  readonly ignoresAccents?: boolean;
  /** Trailing spaces (PAD SPACE collations, MariaDB's default; SQLite's `RTRIM`). */
  readonly ignoresTrailingSpaces?: boolean;
}

/** One field (column) of a model, as the core sees it. The JSON key is `name`. */
export interface FieldDescription {
  /**
   * The field's JSON key, also its name in query parameters and OpenAPI. An adapter whose ORM
   * renames properties in JSON (MikroORM's `serializedName`) gives the JSON name here and
   * translates it back itself: the core sees JSON names only.
   */
  readonly name: string;
  /**
   * The ORM's own name of the property, when the JSON name differs (a `serializedName`): the name
   * a model's declarations use (`PROTECTED_FIELDS`, the admin flag), matched beside `name`.
   */
  readonly property?: string;
  /** For a relation: the type of the referenced primary key. */
  readonly type: FieldType;
  /** `null` is an accepted and storable value. */
  readonly nullable: boolean;
  /** A client must give it on create (not nullable, no default, not generated). */
  readonly required: boolean;
  /** The database or the ORM supplies a value when none is given. */
  readonly hasDefault: boolean;
  /** The static default value, when it is a JSON value (documented in OpenAPI). */
  readonly default?: unknown;
  /** A unique constraint covers this field alone (a duplicate is refused with 409). */
  readonly unique: boolean;
  /** Never in a response, an OpenAPI response schema, a filter, a sort or a field selection. */
  readonly hidden: boolean;
  /** The model's primary key. */
  readonly primary: boolean;
  /** The database generates the value (auto-increment, generated UUID). */
  readonly generated: boolean;
  /** A client may set it through the generated routes (false for keys and protected fields). */
  readonly writable: boolean;
  /**
   * The ORM sets the value on every update (MikroORM's `onUpdate`), over a client's: update bodies
   * do not take it (dropped, or named in a 422 with `strict`); a create may give it.
   */
  readonly setOnUpdate?: boolean;
  /** Longest accepted string, in characters (`maxLength` in the schema). */
  readonly maxLength?: number;
  /** Smallest value of an `integer` field (its column's bound, a safe integer); -2147483648 when absent. */
  readonly minimum?: number;
  /** Largest value of an `integer` field (its column's bound, a safe integer); 2147483647 when absent. */
  readonly maximum?: number;
  /**
   * For a `number` field: its column stores single precision (4 bytes). The database compares the
   * stored value (0.1 is 0.100000001490116 there), not the double a record shows, so keyset paging
   * refuses it as a sort key: a cursor holding 0.1 would repeat or skip rows.
   */
  readonly singlePrecision?: boolean;
  /**
   * The ORM sorts the field by a declared list of its values (MikroORM's `customOrder`), not by
   * the values themselves: a comparison with a cursor's value would follow another order, so keyset
   * paging refuses it as a sort key (offset paging sorts by it).
   */
  readonly customOrder?: boolean;
  /**
   * False when `$like`/`$ilike` do not apply although the kind is text-like: the database does not
   * keep the value as text (a PostgreSQL `uuid`, native enum or `inet` column). Absent: they apply
   * to `string`, `text`, `uuid` and `enum` fields.
   */
  readonly patterns?: boolean;
  /**
   * For a `decimal` field whose database refuses a value with more digits than its column holds
   * (PostgreSQL's `numeric(p, s)`, MySQL/MariaDB's `decimal(p, s)`; SQLite keeps any number): those
   * digits. Write bodies are checked against them, and the OpenAPI document states them.
   */
  readonly digits?: DecimalDigits;
  /**
   * For a `datetime` or `time` key: the most digits after the seconds' point its stored value keeps
   * (0: whole seconds), where a value with more would be stored as another key. A create refuses a
   * client-chosen key with more, as a decimal key with more places than `digits.scale`; absent: every digit given is kept.
   */
  readonly fractionDigits?: number;
  /**
   * The filters the database answers correctly for this field, when not every filter of its kind:
   * the others are a 400 giving the reason, and the OpenAPI document offers only these. Absent:
   * every operator of its kind (MariaDB/MySQL read a value inside a JSON column otherwise).
   */
  readonly filterLimit?: FilterLimit;
  /** The accepted values of an `enum` field, or of the items of an `array` field of an enum. */
  readonly enumValues?: readonly (string | number)[];
  /**
   * For a string or uuid primary key the database compares by more than exact equality: how.
   * `include=` uses it to pair a stored foreign key (`'fr'`) with the record the database matched
   * it to (`'FR'`). Absent: keys match exactly.
   */
  readonly comparison?: TextComparison;
  /** Set when the field is a many-to-one relation; its JSON value is the target's key. */
  readonly relation?: RelationDescription;
  /**
   * For an `object` field (an embedded value): its own fields, by JSON name. Filters may name
   * them by dotted path (`filter[address.city]=Oslo`); the whole object is written at once.
   */
  readonly fields?: readonly FieldDescription[];
  /** For an `array` field: the kind of its items (`string`, `integer` or `number`). */
  readonly itemType?: 'string' | 'integer' | 'number';
  /**
   * The ORM computes the value (a formula, a getter, an inheritance discriminator): it appears in
   * responses (`readOnly` in OpenAPI) and never in request bodies. Implies `writable: false`.
   */
  readonly computed?: boolean;
  /** Left out of responses unless a list request names it in `fields=` (MikroORM's `lazy`). */
  readonly lazy?: boolean;
  /** Whether filters and sort may name it; defaults to true (false for getters, arrays and objects). */
  readonly queryable?: boolean;
  /**
   * Present in some records only (a subclass's own field, served on the root of its inheritance
   * hierarchy): a record without it leaves it out, and it is never required. Implies read-only.
   */
  readonly variant?: boolean;
}

/** The digits a database holds a decimal to, where it refuses more. */
export interface DecimalDigits {
  /** Most digits before the point, counted once the value is rounded to `scale` places. */
  readonly integer: number;
  /** Places the database rounds a value to before it counts its digits; absent: none. */
  readonly scale?: number;
  /** Most digits after the point the database reads at all; absent: any number. */
  readonly fraction?: number;
}

/** The frozen description of one model: everything downstream is derived from it. */
export interface ModelDescription {
  /** The model's class name. */
  readonly name: string;
  /** Table name: `__tablename__`, the ORM's explicit table name, or the plural snake_case rule. */
  readonly table: string;
  /** The path segment of the generated routes (equal to `table`). */
  readonly resource: string;
  /** Name of the primary key field. */
  readonly primaryKey: string;
  /** Every field, in the order records and documents list them. */
  readonly fields: readonly FieldDescription[];
  /** The same fields, by name. */
  readonly fieldsByName: ReadonlyMap<string, FieldDescription>;
  /** The model class this description was built from. */
  readonly model: ModelClass;
  /** The to-many relations (one-to-many, many-to-many); absent or empty when there are none. */
  readonly collections?: readonly CollectionDescription[];
  /** The ORM never writes this model (MikroORM's `readonly: true`): only its GET routes are served. */
  readonly readOnly?: boolean;
  /** False when the ORM cannot create a record of this model itself (an inheritance root whose rows are all subclasses'): no POST route. */
  readonly creatable?: boolean;
  /** Records leave out every field whose value is null, as the ORM serializes them (MikroORM's `forceUndefined`). */
  readonly omitsNull?: boolean;
  /**
   * The ORM runs code of the application's on create (lifecycle hooks, event subscribers) that may
   * set fields no client sends: a hidden required field may be filled there.
   */
  readonly createHooks?: boolean;
  /**
   * The order the ORM gives the model's rows (MikroORM's entity `orderBy`): list routes sort by
   * the request's keys, then by these where the request named no key starting with the same
   * field, then by the primary key. A key may be any field, hidden ones included, a field inside an
   * embedded object or of a many-to-one's target (`team.name`). Absent or empty: the primary key alone.
   */
  readonly defaultOrder?: readonly SortKey[];
}

/** A plain row as an adapter returns it: property names as keys, JS values (Date, boolean…). */
export type RawRecord = Record<string, unknown>;

/** A primary key value after the core coerced it from the path. */
export type RecordId = string | number;

/** The comparison operators of list filters. */
export type FilterOperator =
  | '$eq'
  | '$ne'
  | '$gt'
  | '$gte'
  | '$lt'
  | '$lte'
  | '$in'
  | '$nin'
  | '$like'
  | '$ilike'
  | '$exists';

/** The filters a database answers correctly for one field (`FieldDescription.filterLimit`). */
export interface FilterLimit {
  /** The operators it answers correctly; any other is refused. */
  readonly operators: readonly FilterOperator[];
  /**
   * Operands it would also match where the field is null (a null it reads as 0, `false` or the
   * text `null`): refused whatever the operator.
   */
  readonly values?: readonly (string | number | boolean)[];
  /** Why, in a sentence: the 400's detail after the parameter's name, and the OpenAPI description. */
  readonly reason: string;
}

/** One condition of a list query; `value` is already coerced to the field's type. */
export interface FilterCondition {
  /**
   * Name of the field the condition tests; a dotted path (`address.city`) into an `object` field,
   * or through a many-to-one relation to a field of its target (`owner.username`).
   */
  readonly field: string;
  /** The comparison to apply. */
  readonly op: FilterOperator;
  /**
   * An array for `$in`/`$nin`, a boolean for `$exists`, the pattern text for `$like`/`$ilike`
   * (read it with `parseLikePattern`); otherwise one value in the field kind's form: a number for
   * `integer`/`number`, a boolean for `boolean`, a string for the rest — `bigint` normalised
   * digits, `decimal`, `date`, `time` and `datetime` as given (a datetime with its offset, or a
   * bare day meaning UTC midnight: compare it as an instant). `null` only for `$eq`/`$ne` from a
   * policy's `scope()`. Table in docs/adapters.md, "List semantics".
   */
  readonly value: unknown;
}

/** One sort key. */
export interface SortKey {
  /** Name of the field to sort by, or a path through a many-to-one relation (`category.name`). */
  readonly field: string;
  /** Ascending or descending order. */
  readonly direction: 'asc' | 'desc';
  /**
   * Where NULLs go, when a model's default order says (`'desc nulls last'`); absent: where the
   * database puts them. Request keys never carry it.
   */
  readonly nulls?: 'first' | 'last';
}

/**
 * A validated list query handed to an adapter. Fields named here are readable fields, except sort
 * keys of the model's default order (`ModelDescription.defaultOrder`), which may name any field.
 */
export interface ListQuery {
  /** Conditions a row must all meet (AND). */
  readonly filters: readonly FilterCondition[];
  /** Sort keys, most significant first. */
  readonly sort: readonly SortKey[];
  /** Largest number of rows to return. */
  readonly limit: number;
  /** Number of matching rows to skip before the first returned one. */
  readonly offset: number;
  /** Count the rows matching `filters` (ignoring limit, offset and after). */
  readonly withTotal: boolean;
  /**
   * Keyset position: one value per sort key (same order, in the forms of `FilterCondition.value`,
   * never null). Only rows strictly after it in the sort order are returned; `offset` is then 0.
   * With `after` set every sort key is a non-nullable field of the model itself (no relation path).
   */
  readonly after?: readonly unknown[];
  /**
   * The response's field selection (`fields=`), when the request made one. An adapter must load a
   * lazy field when it is named here, and may load only these fields (plus the primary key).
   */
  readonly fields?: readonly string[];
}

/** One link of a to-many relation: an owner's key and the key of one related record. */
export interface RelationLink {
  /** Primary key of the owning record (the model that declares the collection). */
  readonly owner: RecordId;
  /** Primary key of the related record (the collection's target). */
  readonly target: RecordId;
}

/** What an adapter returns for a list query. */
export interface ListResult {
  /** The rows of the requested page, in order. */
  readonly rows: readonly RawRecord[];
  /** Present when `withTotal` was asked. */
  readonly total?: number;
}

/** How a unit of work reads. */
export interface SessionOptions {
  /**
   * Every read sees every committed write: where the ORM reads from replicas, this session reads
   * from the primary. The core asks for it in requests that write and for the auth plugin's own
   * checks (tokens, revocations); an ORM without replicas can ignore it.
   */
  readonly primary?: boolean;
}

/**
 * The contract between the core and an ORM. Adapters are raw: no HTTP, no JWT, no policies.
 * They map their own errors to `ApiError` (unique violation → `ApiError.conflict`, not-null →
 * `ApiError.validation`, connection lost → `ApiError.unavailable`).
 *
 * Every data method takes a session from `openSession()`: one unit of work per request.
 */
export interface OrmAdapter<Session = unknown> {
  /** A short name for logs and the conformance report, e.g. `mikro-orm:sqlite`. */
  readonly name: string;
  /** Introspect a model once; throws `ConfigurationError` for what cannot be served (composite keys…). */
  describe(model: ModelClass): ModelDescription;
  /** A fresh unit of work (for MikroORM, a forked EntityManager). */
  openSession(options?: SessionOptions): Session;
  /** Rows matching the query, in order, with the total when asked. */
  list(session: Session, model: ModelClass, query: ListQuery): Promise<ListResult>;
  /** The row with that primary key, or `undefined`. */
  get(session: Session, model: ModelClass, id: RecordId): Promise<RawRecord | undefined>;
  /** The first row whose `field` equals `value` (used by the auth plugin), or `undefined`. */
  findBy(session: Session, model: ModelClass, field: string, value: unknown): Promise<RawRecord | undefined>;
  /**
   * For `include=` of a to-many relation: the links of the given owners, in one statement however
   * many owners there are. Each owner's links come in the order the ORM gives the relation (MikroORM:
   * the relation's and the target's `orderBy`), ties and relations without one ordered by target
   * key; at most `perOwner` of them, the first in that order; owners with none have no link.
   * Without it the core embeds no collection: registering a router for a model that has some
   * warns (`KMA_COLLECTIONS_WITHOUT_LINKS`), and `include=` of one is a 400.
   */
  links?(
    session: Session,
    model: ModelClass,
    collection: string,
    owners: readonly RecordId[],
    perOwner: number,
  ): Promise<readonly RelationLink[]>;
  /**
   * Insert a row from validated data; returns the stored row (with generated values). Data may
   * hold a writable collection as an array of existing target keys: the links are written in the
   * same transaction as the row.
   */
  create(session: Session, model: ModelClass, data: Readonly<RawRecord>): Promise<RawRecord>;
  /**
   * Change the given fields; returns the stored row, or `undefined` when there is no such row. A
   * writable collection given as an array of keys replaces the record's links, in one transaction.
   */
  update(
    session: Session,
    model: ModelClass,
    id: RecordId,
    data: Readonly<RawRecord>,
  ): Promise<RawRecord | undefined>;
  /** Delete the row; false when there was none. */
  delete(session: Session, model: ModelClass, id: RecordId): Promise<boolean>;
  /** Resolves when the database answers; rejects with `ApiError.unavailable` otherwise. */
  ping(): Promise<void>;
  /** Release connections. */
  close(): Promise<void>;
}

/** The authenticated caller, as any authentication middleware leaves it in `ctx.state.user`. */
export interface RequestUser {
  /** The user's primary key. */
  readonly id: RecordId;
  /** Whether the user holds the admin flag. */
  readonly isAdmin: boolean;
  /** The user's readable fields (never secrets). */
  readonly record?: Readonly<RawRecord>;
}

/** HTTP methods the generated routes answer. */
export type CrudMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a policy is asked about. `record` is the stored row for routes with an `{id}`. */
export interface PolicyInput {
  /** The caller, or `undefined` when anonymous. */
  readonly user: RequestUser | undefined;
  /** The HTTP method of the route being asked about. */
  readonly method: CrudMethod;
  /** The model the route serves. */
  readonly model: ModelDescription;
  /** The stored row, for routes with an `{id}`; absent on create and list. */
  readonly record?: Readonly<RawRecord>;
  /**
   * The id of the path as the route read it, with `record`: what the 404 of a missing record names
   * (`ApiError.recordNotFound(model, id)`); it may differ from the stored key where the database
   * compares keys loosely (a case-insensitive collation finds `Draft` for `draft`).
   */
  readonly id?: RecordId;
}

/**
 * A policy is a value the `CrudRouter` enforces for one HTTP method: 401 when it needs a user and
 * there is none, 403 when `allows` answers false.
 */
export interface Policy {
  /** Short name, shown in the OpenAPI document. */
  readonly name: string;
  /** Whether an anonymous caller is refused with 401 before `allows` is asked. */
  readonly requiresUser: boolean;
  /** Authenticates the request when no user is set yet (so unsecured routers can have policies). */
  readonly authenticate?: Middleware<AppState>;
  /** The ownership field this policy relies on, when it has one. */
  readonly ownerField?: (model: ModelDescription) => string | undefined;
  /** One sentence for the OpenAPI operation description. */
  readonly description: string;
  /** Whether the caller may do this; false answers 403. */
  allows(input: PolicyInput): boolean | Promise<boolean>;
  /**
   * For list routes: conditions that narrow the rows the caller sees (e.g. only their own), or
   * `undefined` for no narrowing. Asked after `allows` answered true with no record.
   */
  scope?(input: PolicyInput): readonly FilterCondition[] | undefined;
}

/** The per-request state the framework uses. */
export interface AppState {
  /** The authenticated caller, set by the authentication dependency. */
  user?: RequestUser;
}

/** The Koa context type of the framework's middleware. */
export type AppContext = ParameterizedContext<AppState>;

/** An authentication dependency: middleware that sets `ctx.state.user` or throws a 401 `ApiError`. */
export type AuthDependency = Middleware<AppState> & {
  /** The user model, when the dependency knows it (used to detect ownership fields). */
  readonly userModel?: ModelClass;
  /** The OpenAPI security scheme name this dependency documents. */
  readonly securityScheme?: string;
};

// Every Koa middleware of an app that uses koa-model-api sees the caller typed: a hand-written
// authentication dependency must set `ctx.state.user` as a `RequestUser` (`isAdmin`, not `is_admin`).
declare module 'koa' {
  interface DefaultState {
    /** The authenticated caller, set by the authentication dependency (`RequestUser`). */
    user?: RequestUser;
  }
}
