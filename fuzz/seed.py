#!/usr/bin/env python3
"""Writes a starting corpus for each fuzz target from firn-core's test vectors: fuzz/corpus/<target>/."""
import json, pathlib

root = pathlib.Path(__file__).resolve().parent
vectors = root.parent / "crates/firn-core/tests/vectors"
corpus = root / "corpus"

def put(target, name, data):
    d = corpus / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)

def unhex(s):
    return bytes.fromhex(s.strip().removeprefix("0x"))

for f in sorted((vectors / "pchain/txs").glob("*.unsigned.hex")):
    b = unhex(f.read_text())
    put("pchain_unsigned_tx", f.stem, b)
    put("pchain_tx", f.stem, b + b"\0\0\0\0")
meta = json.loads((vectors / "pchain/blocks/mainnet-height-1000001.meta.json").read_text())
put("pchain_tx", "mainnet-export", unhex(meta["signed_tx_hex"]))
put("pchain_block", "mainnet-1000001", unhex((vectors / "pchain/blocks/mainnet-height-1000001.block.hex").read_text()))
for v in json.loads((vectors / "pchain/blocks/banff-serialization.json").read_text())["vectors"]:
    put("pchain_block", "banff-%d" % v["type_id"], unhex(v["hex"]))
for f in sorted((vectors / "avm").glob("*/*.hex")):
    put("avm_tx", f.stem, unhex(f.read_text()))
for f in sorted((vectors / "atomic/txs").glob("*.hex")):
    put("atomic_tx", f.stem, unhex(f.read_text()))
for f in sorted((vectors / "proposervm").glob("*.block.hex")):
    put("proposervm_block", f.stem, unhex(f.read_text()))
w = json.loads((vectors / "warp/generated-bitset-signature.json").read_text())
put("warp_message", "generated", unhex(w["signed_message_hex"]))
put("warp_unsigned_message", "generated", unhex(w["unsigned_message_hex"]))
put("warp_payload", "addressed-call", unhex(w["addressed_call_hex"]))
put("warp_payload", "hash", unhex(w["hash_payload_example_hex"]))
l1 = json.loads((vectors / "warp/pchain-l1-messages.json").read_text())
for m in l1["messages"]:
    put("warp_l1_message", m["name"], unhex(m["hex"]))
put("warp_conversion_data", "vector", unhex(l1["conversion_data"]["hex"]))
bls = json.loads((vectors / "bls/avalanchejs-bls-vector.json").read_text())
put("bls_points", "pk", unhex(bls["public_key_compressed_48"]))
for k, v in bls.items():
    if k.startswith("signature_96"):
        put("bls_points", "sig", unhex(v))
put("acp118", "request", bytes([2, 0x0a, 3, 1, 2, 3, 0x12, 1, 9]))
for s in ["11111111111111111111111111111111LpoYY", "NodeID-111111111111111111116DBWJs",
          "P-avax1jkjyvlwclyu42n4yuegpczpfgwrf8r9lyj0d3c", "0x6669726e" ]:
    put("text_ids", s.replace("/", "_")[:40], s.encode())
print("corpus written to", corpus)
