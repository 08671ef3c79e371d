/** The named cases of the conformance suite, in the order they run. */

/** Every case name; a target may skip a case only by naming it with a reason. */
export const conformanceCases = [
  'resource-names',
  'create-201-location-defaults',
  'create-drops-pk-and-unknown-fields',
  'create-strict-rejects-pk-and-unknown-fields',
  'validation-422-one-entry-per-field',
  'round-trip-every-field-kind',
  'get-unknown-id-404',
  'update-keeps-absent-fields',
  'update-ignores-primary-key',
  'update-unknown-id-404',
  'delete-204-then-404',
  'unique-conflict-409-on-create',
  'unique-conflict-409-on-update',
  'uuid-primary-key',
  'natural-string-primary-key',
  'many-to-one-as-key',
  'many-to-one-bad-reference-422',
  'list-default-limit-100',
  'list-limit-bounds',
  'list-offset-and-limit',
  'list-sort-multi-key',
  'list-filter-comparisons',
  'list-filter-in-nin',
  'list-filter-like',
  'list-filter-like-case-sensitive',
  'list-filter-exists-and-null',
  'list-filter-value-coercion',
  'list-fields-selection',
  'list-rejects-unreadable-fields',
  'list-total-count-and-links',
  'malformed-json-400',
  'unsupported-media-type-415',
  'payload-too-large-413',
  'unknown-route-404',
  'method-not-allowed-405',
  'errors-are-problem-details',
] as const;

/** The name of one conformance case. */
export type ConformanceCaseName = (typeof conformanceCases)[number];
