// WAL positions (LSNs) as PostgreSQL writes them, `16/B374D848`: two hexadecimal
// halves of a 64-bit byte position. Compared as numbers, never as text.

const LSN = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i;

/** The position `text` names, or null when it is not one (a client's X-Consistency header is not trusted). */
export function parseLsn(text: string): bigint | null {
  const match = LSN.exec(text.trim());
  return match ? (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`) : null;
}
