/**
 * The adversarial catalogue of issue 6: every named case, in the order they run. Groups share one
 * application per database target, so the order matters only for the one case meant to change
 * the admins, which runs after every case that relies on Bob and Alice not being admins.
 */
import { accountCases } from './cases/account.js';
import { authorizationCases } from './cases/authorization.js';
import { credentialCases } from './cases/credentials.js';
import { floodCases } from './cases/floods.js';
import { headerCases } from './cases/headers.js';
import { inputCases } from './cases/input.js';
import { jwtCases } from './cases/jwt.js';
import { listingCases } from './cases/listing.js';
import { loginCases } from './cases/login.js';
import { massAssignmentCases } from './cases/mass-assignment.js';
import { identifierCases, routingCases } from './cases/routing.js';
import { sessionCases } from './cases/sessions.js';
import { usernameCases } from './cases/usernames.js';
import type { SecurityCase } from './support/cases.js';

/** Every case of the catalogue. */
export const catalogue: readonly SecurityCase[] = [
  ...jwtCases,
  ...massAssignmentCases,
  ...loginCases,
  ...inputCases,
  ...identifierCases,
  ...routingCases,
  ...listingCases,
  ...headerCases,
  ...credentialCases,
  ...authorizationCases,
  ...floodCases,
  ...usernameCases,
  ...sessionCases,
  ...accountCases,
];
