// Bytes as lower-case hex, two digits each: digests and random ids.

export const hexOf = (bytes: ArrayBuffer | Uint8Array): string => Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, '0')).join('')
