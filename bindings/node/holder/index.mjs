// ESM entry of @echomq/emq-id/holder: the same module as index.js.
import holder from './index.js';

export const { Lease, LeaseWireError } = holder;
export default holder;
