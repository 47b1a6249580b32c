/**
 * The listeners of a token store's revocations in this process: a server subscribes so that a
 * `revoke` made beside it ends that token's open streams before `revoke` returns, instead of
 * within the next re-check.
 */

/** Told the id of each token a store revoked, synchronously, before `revoke` returns. */
export type RevocationListener = (tokenId: string) => void;

/** A set of {@link RevocationListener}s, for token stores to embed. */
export class RevocationListeners {
  readonly #listeners = new Set<RevocationListener>();

  /** Add `listener`; the function returned removes it. */
  subscribe(listener: RevocationListener): () => void {
    // A wrapper per subscription, so the same function subscribed twice is removed once per call.
    const entry: RevocationListener = (tokenId) => listener(tokenId);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  /** Tell every listener; one that throws is logged and never stops the others or the revocation. */
  emit(tokenId: string): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(tokenId);
      } catch (error) {
        console.error("sema server: a revocation listener failed", error);
      }
    }
  }
}
