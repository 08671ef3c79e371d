/**
 * A router whose create route cannot succeed: the model has hidden required fields (not nullable,
 * no default) that clients can neither see nor send and nothing on the server fills — not the
 * router's write hooks, not the owner it sets from the caller, not the ORM's hooks or subscribers.
 * Every create would be a 422 `server_value_missing`; registration warns (`KMA_HIDDEN_REQUIRED`).
 */
import type { ModelDescription } from '../types.js';

/** Warns once per router when its creates would all fail for want of hidden values. */
export function warnHiddenRequired(
  model: ModelDescription,
  filled: { readonly writeHooks: boolean; readonly ownerField: string | undefined },
): void {
  if (model.readOnly === true || model.creatable === false) return;
  // The router's write hooks (the auth plugin's set `hashed_password`) or the ORM's may fill them.
  if (filled.writeHooks || model.createHooks === true) return;
  const unfilled = model.fields.filter(
    (field) =>
      field.hidden &&
      field.required &&
      !field.primary &&
      !field.generated &&
      field.name !== filled.ownerField,
  );
  if (unfilled.length === 0) return;
  const names = unfilled.map((field) => field.property ?? field.name).join(', ');
  process.emitWarning(
    `koa-model-api: ${model.name} has hidden fields that are required and that nothing sets (${names}: not nullable, no default or onCreate, no hook or subscriber of the ORM, no write hooks of its router); clients can neither see nor send them, so every create through the API fails with 422 server_value_missing. Give them a default or onCreate, set them in a beforeCreate hook, a subscriber or the router's write hooks, make them nullable, or stop hiding them.`,
    { code: 'KMA_HIDDEN_REQUIRED' },
  );
}
