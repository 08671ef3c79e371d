/** Runs the conformance recipe of docs/adapters.md: the suite on the guide's own MemoryAdapter set-up. */
import '../../../examples/recipes/adapters/memory.conformance.js';
