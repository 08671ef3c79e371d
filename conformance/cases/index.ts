/** Every case of the suite by name; the type makes sure no name of `conformanceCases` lacks a body. */
import type { ConformanceCase } from '../context.js';
import type { ConformanceCaseName } from '../names.js';
import { adapterContractCases } from './adapter-contract.js';
import { createCases } from './create.js';
import { datetimeCases } from './datetimes.js';
import { filterCases } from './filters.js';
import { httpCases } from './http.js';
import { includeCases } from './include.js';
import { includeSelectionCases } from './include-selection.js';
import { itemQueryCases } from './item-query.js';
import { keyCases } from './keys.js';
import { keysetCases } from './keyset.js';
import { listCases } from './list.js';
import { recordCases } from './records.js';
import { relationQueryCases } from './relation-queries.js';
import { relationWriteCases } from './relation-writes.js';

/** The body of each named case. */
export const caseBodies: Readonly<Record<ConformanceCaseName, ConformanceCase>> = {
  ...createCases,
  ...datetimeCases,
  ...recordCases,
  ...itemQueryCases,
  ...keyCases,
  ...listCases,
  ...keysetCases,
  ...filterCases,
  ...includeCases,
  ...includeSelectionCases,
  ...relationWriteCases,
  ...relationQueryCases,
  ...httpCases,
  ...adapterContractCases,
};
