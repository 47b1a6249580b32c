/**
 * Collision-free, time-ordered ids (UUID version 7, RFC 9562): 48 bits of milliseconds then 74
 * random bits, so ids minted later sort later and the store's indexes stay append-friendly.
 */

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** Random bytes fetched 4 KiB at a time: one call into the CSPRNG per 409 ids, not per id. */
const POOL_SIZE = 4096;
let pool = new Uint8Array(0);
let offset = POOL_SIZE;

function randomBytes10(): Uint8Array {
  if (offset + 10 > pool.length) {
    pool = globalThis.crypto.getRandomValues(new Uint8Array(POOL_SIZE));
    offset = 0;
  }
  const out = pool.subarray(offset, offset + 10);
  offset += 10;
  return out;
}

/**
 * A fresh time-ordered id (UUID v7) for tasks, leases and inputs. `now` and `random` are injectable
 * for deterministic tests.
 */
export function newId(now: number = Date.now(), random: Uint8Array = randomBytes10()): string {
  let time = "";
  let ms = now;
  for (let i = 0; i < 6; i++) {
    time = (HEX[ms % 256] as string) + time;
    ms = Math.floor(ms / 256);
  }
  const r = (i: number) => random[i] ?? 0;
  return (
    `${time.slice(0, 8)}-${time.slice(8, 12)}-` +
    `${HEX[0x70 | (r(0) & 0x0f)]}${HEX[r(1)]}-${HEX[0x80 | (r(2) & 0x3f)]}${HEX[r(3)]}-` +
    `${HEX[r(4)]}${HEX[r(5)]}${HEX[r(6)]}${HEX[r(7)]}${HEX[r(8)]}${HEX[r(9)]}`
  );
}
