/** A hashing thread that starts, then dies on its first job: for the tests of a thread lost mid-job. */
export default function dyingTask(): never {
  process.exit(3);
}
