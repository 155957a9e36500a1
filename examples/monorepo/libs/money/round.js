'use strict';
// Shared by the services: integer cents, rounded half up (billing depends on this folder).
function percentOf(cents, basisPoints) {
  return Math.floor((cents * basisPoints + 5000) / 10000);
}
module.exports = { percentOf };
