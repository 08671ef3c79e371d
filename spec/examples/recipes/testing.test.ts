/**
 * The testing recipe (docs/testing.md): the application's own test file runs as written, here
 * within this suite (its `describe` registers under this file), on SQLite in memory.
 */
import '../../../examples/recipes/testing/notes.test.js';
