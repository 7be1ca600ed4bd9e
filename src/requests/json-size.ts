// The size of a parsed JSON value, as the bytes of its compact JSON text
// (strings counted by their UTF-8 bytes, not their escapes). Walked without
// recursion and given up as soon as it passes the limit, so a value far larger
// costs no more to refuse than one at the limit.

/** Whether `value`, written as compact JSON, would take more than `limit` bytes. */
export function jsonSizeExceeds(value: unknown, limit: number): boolean {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === 'string') size += Buffer.byteLength(current) + 2;
    else if (current === null || typeof current !== 'object') size += String(current).length;
    else if (Array.isArray(current)) {
      // The brackets and the commas between the items.
      size += Math.max(2, current.length + 1);
      if (size > limit) return true;
      for (const item of current) stack.push(item);
    } else {
      const members = Object.entries(current);
      size += Math.max(2, members.length + 1);
      for (const [key, member] of members) {
        size += Buffer.byteLength(key) + 3;
        stack.push(member);
      }
    }
    if (size > limit) return true;
  }
  return false;
}
