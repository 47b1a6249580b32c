/**
 * Requests that append to one task's log, taken one at a time in this process. They would be
 * correct concurrently (every append is conditional and retried), but each loser of a race re-reads
 * and tries again, so many writers to one task waste most of their work; a queue per task spends
 * none. Other processes still race, and the conditional append still keeps them right.
 */
export class TaskQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(taskId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(taskId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(taskId, tail);
    // Forget the task once its queue drains, so idle tasks cost nothing.
    void tail.then(() => {
      if (this.#tails.get(taskId) === tail) this.#tails.delete(taskId);
    });
    return next;
  }
}
