// The browser's verifier of the audit: checkpoints, proofs, each version's
// chain hash and leaf, exports, and the memory of what this browser saw of
// each log. It trusts the server for nothing but bytes, and uses Web
// Crypto only.

export { checkRecord, editable, properties, recordMembers, recordOf, storeMembers } from "./chain.ts";
export { verifyExport, type ExportReport } from "./export.ts";
export { verifyHistory, type Status, type Verdict } from "./history.ts";
export { parseStrict, type Json } from "./json.ts";
export { leafOf } from "./leaf.ts";
export { CheckpointMemory, type Inconsistency, type KeyValueStore, type Observation } from "./memory.ts";
export { rootAround, tilePath, type TileReader } from "./merkle.ts";
export { describe, openCheckpoint, parseKey, rawECDSA, type Checkpoint, type NoteKey } from "./note.ts";
export { bundleOf, consistencyOf, verifyBundle, verifyConsistency, type ConsistencyProof, type ProofBundle } from "./proof.ts";
