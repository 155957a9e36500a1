// The version the build stamps into the bundle (scripts/build.mjs defines RECEIPT_GATE_VERSION).

declare const RECEIPT_GATE_VERSION: string;
export const VERSION = typeof RECEIPT_GATE_VERSION === 'string' ? RECEIPT_GATE_VERSION : '0.0.0-dev';
