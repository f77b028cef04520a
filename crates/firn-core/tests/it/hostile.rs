//! Hostile bytes: every decoder runs on thousands of mutations of the real vectors and must
//! return an error or a value that re-encodes to exactly the input (decoding is canonical).
//! The `fuzz/` crate runs the same decoders under libFuzzer; this is its always-on cousin.

use crate::vectors;
use firn_core::codec::{self, Decode, Encode};
use firn_core::pchain::{Block, Tx, UnsignedTx};

/// A small deterministic PRNG (xorshift64*), so failures reproduce.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One random mutation of `input`: bit flips, byte overwrites, length-field attacks,
/// truncation, deletion, duplication and insertion.
pub fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    let rounds = 1 + rng.below(3);
    for _ in 0..rounds {
        let len = out.len();
        match rng.below(8) {
            0 if len > 0 => {
                let i = rng.below(len);
                out[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                out[i] = rng.next() as u8;
            }
            2 if len >= 4 => {
                // A plausible length or type field: huge, zero, or off by a little.
                let i = rng.below(len - 3);
                let value: u32 = match rng.below(4) {
                    0 => u32::MAX,
                    1 => 0,
                    2 => rng.next() as u32 % 64,
                    _ => u32::from_be_bytes([out[i], out[i + 1], out[i + 2], out[i + 3]])
                        .wrapping_add(1),
                };
                out[i..i + 4].copy_from_slice(&value.to_be_bytes());
            }
            3 => out.truncate(rng.below(len + 1)),
            4 if len > 0 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(16)).min(len);
                out.drain(start..end);
            }
            5 if len > 0 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(64)).min(len);
                let chunk = out[start..end].to_vec();
                let at = rng.below(out.len() + 1);
                out.splice(at..at, chunk);
            }
            _ => {
                let at = rng.below(len + 1);
                let extra: Vec<u8> = (0..1 + rng.below(8)).map(|_| rng.next() as u8).collect();
                out.splice(at..at, extra);
            }
        }
    }
    out
}

/// Runs `decode` on `rounds` mutations of each seed; a decoded value must re-encode to its input,
/// and some mutations must decode, so that the re-encode check really runs.
pub fn assert_survives<T, F, E>(name: &str, seeds: &[Vec<u8>], rounds: usize, decode: F, encode: E)
where
    F: Fn(&[u8]) -> Option<T>,
    E: Fn(&T) -> Vec<u8>,
{
    let accepted = survive(name, seeds, rounds, decode, encode);
    // Some mutations (e.g. a flipped amount bit) stay valid: that path must be exercised too.
    assert!(
        accepted > 0,
        "{name}: no mutation decoded, so the re-encode check never ran"
    );
}

/// The checks of [`assert_survives`]; returns how many mutations decoded.
fn survive<T, F, E>(name: &str, seeds: &[Vec<u8>], rounds: usize, decode: F, encode: E) -> usize
where
    F: Fn(&[u8]) -> Option<T>,
    E: Fn(&T) -> Vec<u8>,
{
    let mut rng = Rng::new(0x6669_726e ^ name.len() as u64);
    let mut accepted = 0usize;
    for seed in seeds {
        let value = decode(seed).unwrap_or_else(|| panic!("{name}: an unmutated seed must decode"));
        assert_eq!(&encode(&value), seed, "{name}: seed does not re-encode");
        for _ in 0..rounds {
            let input = mutate(&mut rng, seed);
            if let Some(value) = decode(&input) {
                accepted += 1;
                assert_eq!(
                    encode(&value),
                    input,
                    "{name}: accepted bytes that do not re-encode: {}",
                    hex::encode(&input)
                );
            }
        }
    }
    accepted
}

fn codec_round_trip<T: Decode + Encode>(name: &str, seeds: &[Vec<u8>], rounds: usize) {
    assert_survives(
        name,
        seeds,
        rounds,
        |b| codec::from_bytes::<T>(b).ok(),
        codec::to_bytes,
    );
}

fn tx_seeds() -> Vec<Vec<u8>> {
    std::fs::read_dir(vectors::path("pchain/txs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".unsigned.hex"))
        .map(|p| vectors::unhex(&std::fs::read_to_string(p).unwrap()))
        .collect()
}

fn block_seeds() -> Vec<Vec<u8>> {
    let mut seeds = vec![vectors::unhex(&vectors::text(
        "pchain/blocks/mainnet-height-1000001.block.hex",
    ))];
    let file = vectors::json("pchain/blocks/banff-serialization.json");
    for v in file["vectors"].as_array().unwrap() {
        seeds.push(vectors::unhex(v["hex"].as_str().unwrap()));
    }
    seeds
}

#[test]
fn unsigned_tx_decoder_survives_mutated_vectors() {
    codec_round_trip::<UnsignedTx>("unsigned tx", &tx_seeds(), 2_000);
}

#[test]
fn signed_tx_decoder_survives_mutated_vectors() {
    let meta = vectors::json("pchain/blocks/mainnet-height-1000001.meta.json");
    let mut seeds = vec![vectors::unhex(meta["signed_tx_hex"].as_str().unwrap())];
    // Unsigned vectors plus an empty credential list are valid signed txs too.
    seeds.extend(tx_seeds().into_iter().map(|mut b| {
        b.extend_from_slice(&[0, 0, 0, 0]);
        b
    }));
    codec_round_trip::<Tx>("signed tx", &seeds, 2_000);
}

#[test]
fn block_decoder_survives_mutated_vectors() {
    codec_round_trip::<Block>("block", &block_seeds(), 20_000);
}

fn vector_files(dir: &str, suffix: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<_> = std::fs::read_dir(vectors::path(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| vectors::unhex(&std::fs::read_to_string(p).unwrap()))
        .collect()
}

#[test]
fn avm_decoders_survive_mutated_vectors() {
    use firn_core::avm::vertex::VertexKind;
    use firn_core::avm::{Block, Tx, UnsignedTx, Utxo, Vertex};
    use firn_core::codec::Bytes;
    use firn_core::ids::Id;

    let txs = vector_files("avm/txs", ".tx.hex");
    codec_round_trip::<Tx>("X-Chain tx", &txs, 2_000);
    let unsigned: Vec<Vec<u8>> = txs
        .iter()
        .map(|b| codec::from_bytes::<Tx>(b).unwrap().unsigned().bytes())
        .collect();
    codec_round_trip::<UnsignedTx>("X-Chain unsigned tx", &unsigned, 1_000);
    codec_round_trip::<Utxo>(
        "X-Chain UTXO",
        &vector_files("avm/utxos", ".utxo.hex"),
        1_000,
    );

    let decoded: Vec<Tx> = txs.iter().map(|b| codec::from_bytes(b).unwrap()).collect();
    let block = Block::new(Id([1; 32]), 5, 6, Id::ZERO, decoded[..3].to_vec());
    codec_round_trip::<Block>("X-Chain block", &[block.bytes()], 10_000);
    let vertex = Vertex::new(
        Id([2; 32]),
        3,
        vec![Id([3; 32])],
        VertexKind::Standard {
            epoch: 0,
            txs: txs[..2].iter().cloned().map(Bytes).collect(),
        },
    );
    let stop = Vertex::new(Id([2; 32]), 4, vec![vertex.id()], VertexKind::Stop);
    assert_survives(
        "X-Chain vertex",
        &[vertex.bytes(), stop.bytes()],
        10_000,
        |b| Vertex::from_bytes(b).ok(),
        Vertex::bytes,
    );
}

#[test]
fn atomic_tx_decoder_survives_mutated_vectors() {
    use firn_core::atomic::{Tx, Utxo, txs_from_ext_data};
    let txs = vector_files("atomic/txs", ".tx.hex");
    codec_round_trip::<Tx>("atomic tx", &txs, 5_000);
    codec_round_trip::<Utxo>(
        "atomic UTXO",
        &vector_files("atomic/utxos", ".utxo.hex"),
        1_000,
    );
    // A batch, as Apricot Phase 5 blocks carry them.
    let decoded: Vec<Tx> = txs.iter().map(|b| codec::from_bytes(b).unwrap()).collect();
    let batch = codec::to_bytes(&decoded);
    assert_survives(
        "atomic tx batch",
        &[batch],
        5_000,
        |b| txs_from_ext_data(b, true).ok(),
        codec::to_bytes,
    );
}

#[test]
fn text_decoders_survive_mutated_strings() {
    use firn_core::address::ChainAddress;
    use firn_core::encoding::{Encoding, cb58_decode};
    use firn_core::ids::{Id, NodeId};
    let ids: Vec<Vec<u8>> = [
        "11111111111111111111111111111111LpoYY",
        "FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let text = |b: &[u8]| std::str::from_utf8(b).ok().map(str::to_owned);
    assert_survives(
        "id",
        &ids,
        5_000,
        |b| text(b)?.parse::<Id>().ok(),
        |id| id.to_string().into_bytes(),
    );
    assert_survives(
        "cb58",
        &ids,
        5_000,
        |b| cb58_decode(&text(b)?).ok().map(|_| text(b)),
        |s| s.clone().unwrap_or_default().into_bytes(),
    );
    let node = vec![b"NodeID-111111111111111111116DBWJs".to_vec()];
    assert_survives(
        "node id",
        &node,
        5_000,
        |b| text(b)?.parse::<NodeId>().ok(),
        |n| n.to_string().into_bytes(),
    );
    let addrs = vec![
        b"P-avax1jkjyvlwclyu42n4yuegpczpfgwrf8r9lyj0d3c".to_vec(),
        b"P-testing1g32kvaugnx4tk3z4vemc3xd2hdz92enhgrdu9n".to_vec(),
    ];
    // bech32 is case-insensitive, so compare lowercase forms.
    assert_survives(
        "address",
        &addrs,
        5_000,
        |b| {
            let s = text(b)?;
            let addr = s.parse::<ChainAddress>().ok()?;
            let (_, bech) = s.split_once('-')?;
            (bech == bech.to_lowercase()).then_some(addr)
        },
        |a| a.to_string().into_bytes(),
    );
    let hex = vec![
        vectors::text("pchain/blocks/mainnet-height-1000001.getBlock-hex-response.txt")
            .trim()
            .as_bytes()
            .to_vec(),
    ];
    assert_survives(
        "checksummed hex",
        &hex,
        2_000,
        |b| {
            let s = text(b)?;
            let bytes = Encoding::Hex.decode_bytes(&s).ok()?;
            (s == s.to_lowercase()).then_some(bytes)
        },
        |bytes| {
            Encoding::Hex
                .encode_bytes(bytes)
                .unwrap_or_default()
                .into_bytes()
        },
    );
}

fn warp_vector(key: &str) -> Vec<u8> {
    let v = vectors::json("warp/generated-bitset-signature.json");
    vectors::unhex(
        v[key]
            .as_str()
            .unwrap_or_else(|| panic!("no {key} in the warp vector")),
    )
}

fn l1_message_seeds() -> Vec<Vec<u8>> {
    let file = vectors::json("warp/pchain-l1-messages.json");
    file["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| vectors::unhex(m["hex"].as_str().unwrap()))
        .collect()
}

#[test]
fn warp_decoders_survive_mutated_vectors() {
    use firn_core::warp::messages::{L1Message, SubnetToL1ConversionData};
    use firn_core::warp::payload::Payload;
    use firn_core::warp::{Message, UnsignedMessage};

    let signed = warp_vector("signed_message_hex");
    let unsigned = warp_vector("unsigned_message_hex");
    assert_survives(
        "warp message",
        &[signed],
        20_000,
        |b| Message::from_bytes(b).ok(),
        Message::bytes,
    );
    assert_survives(
        "warp unsigned message",
        &[unsigned],
        20_000,
        |b| UnsignedMessage::from_bytes(b).ok(),
        |m| m.bytes(),
    );
    let mut payloads = vec![
        warp_vector("addressed_call_hex"),
        warp_vector("hash_payload_example_hex"),
    ];
    payloads.push(Payload::Hash(firn_core::ids::Id([5; 32])).bytes());
    assert_survives(
        "warp payload",
        &payloads,
        10_000,
        |b| Payload::from_bytes(b).ok(),
        Payload::bytes,
    );
    assert_survives(
        "P-Chain L1 message",
        &l1_message_seeds(),
        10_000,
        |b| L1Message::from_bytes(b).ok(),
        |m| m.bytes(),
    );
    let conversion = vectors::json("warp/pchain-l1-messages.json")["conversion_data"]["hex"]
        .as_str()
        .unwrap()
        .to_string();
    assert_survives(
        "conversion data",
        &[vectors::unhex(&conversion)],
        10_000,
        |b| SubnetToL1ConversionData::from_bytes(b).ok(),
        SubnetToL1ConversionData::bytes,
    );
}

#[test]
fn predicate_decoders_survive_mutated_bytes() {
    use firn_core::warp::predicate::{BlockResults, Chunk, pack, unpack};
    use std::collections::BTreeMap;

    let signed = warp_vector("signed_message_hex");
    let as_chunks = |b: &[u8]| -> Option<Vec<Chunk>> {
        b.len().is_multiple_of(32).then(|| {
            b.chunks_exact(32)
                .map(|c| <Chunk>::try_from(c).unwrap_or_default())
                .collect()
        })
    };
    let flat = |chunks: &[Chunk]| chunks.concat();
    assert_survives(
        "warp predicate",
        &[flat(&pack(&signed)), flat(&pack(b"x"))],
        20_000,
        |b| unpack(&as_chunks(b)?).ok(),
        |bytes| flat(&pack(bytes)),
    );
    let mut results = BlockResults::new();
    results.set(
        [1; 32],
        BTreeMap::from([([2; 20], vec![0, 9]), ([3; 20], vec![])]),
    );
    results.set([4; 32], BTreeMap::from([([2; 20], vec![1])]));
    assert_survives(
        "predicate results",
        &[results.bytes(), BlockResults::new().bytes()],
        20_000,
        |b| BlockResults::parse(b).ok(),
        BlockResults::bytes,
    );
}

/// Protobuf is not canonical (unknown fields are skipped, the last value wins), so for the
/// ACP-118 messages only "no panic, bounded" is asserted, plus that what decodes re-decodes.
#[test]
fn acp118_decoders_survive_mutated_messages() {
    use firn_core::warp::acp118::{
        L1ValidatorRegistrationJustification, SignatureRequest, SignatureResponse,
    };
    let unsigned = warp_vector("unsigned_message_hex");
    let request = SignatureRequest {
        message: unsigned,
        justification: vec![1, 2, 3],
    };
    let seeds = [request.app_request_bytes(), request.bytes()];
    let mut rng = Rng::new(118);
    for seed in &seeds {
        for _ in 0..20_000 {
            let input = mutate(&mut rng, seed);
            if let Ok(req) = SignatureRequest::from_app_request_bytes(&input) {
                assert_eq!(SignatureRequest::from_bytes(&req.bytes()).unwrap(), req);
            }
            if let Ok(req) = SignatureRequest::from_bytes(&input) {
                assert_eq!(SignatureRequest::from_bytes(&req.bytes()).unwrap(), req);
            }
            if let Ok(resp) = SignatureResponse::from_bytes(&input) {
                assert_eq!(SignatureResponse::from_bytes(&resp.bytes()).unwrap(), resp);
            }
            if let Ok(j) = L1ValidatorRegistrationJustification::from_bytes(&input) {
                assert_eq!(
                    L1ValidatorRegistrationJustification::from_bytes(&j.bytes()).unwrap(),
                    j
                );
            }
        }
    }
}

#[test]
fn bls_decoders_survive_mutated_points() {
    use firn_core::keys::bls::{PublicKey, Signature};
    let v = vectors::json("bls/avalanchejs-bls-vector.json");
    let pk = vectors::unhex(v["public_key_compressed_48"].as_str().unwrap());
    let sig = vectors::unhex(
        v["signature_96_dst_BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"]
            .as_str()
            .unwrap(),
    );
    // A mutated curve point is almost never a valid subgroup point, so acceptance is not required.
    survive(
        "bls public key",
        &[pk],
        3_000,
        |b| PublicKey::from_bytes(b).ok(),
        |k| k.to_bytes().to_vec(),
    );
    survive(
        "bls signature",
        &[sig],
        1_000,
        |b| Signature::from_bytes(b).ok(),
        |s| s.to_bytes().to_vec(),
    );
}

#[test]
fn proposervm_parser_survives_mutated_blocks() {
    use firn_core::proposervm::{Block, OptionBlock};
    let mut seeds = vector_files("proposervm", ".block.hex");
    // The "gibberish" vector is not a block; the two real ones are.
    seeds.retain(|b| Block::parse(b).is_ok());
    assert_eq!(seeds.len(), 2);
    let option = Block::Option(OptionBlock {
        parent_id: firn_core::ids::Id([5; 32]),
        inner: vec![1, 2, 3].into(),
    });
    seeds.push(option.bytes());
    assert_survives(
        "proposervm block",
        &seeds,
        5_000,
        |b| Block::parse(b).ok(),
        Block::bytes,
    );
}

#[test]
fn teleporter_decoders_survive_mutated_bytes() {
    use firn_core::ids::Id;
    use firn_core::teleporter::{FeeInfo, Receipt, TeleporterEvent, TeleporterMessage};
    use firn_core::text::{Address, U256};

    let message = TeleporterMessage {
        nonce: U256::from(9),
        origin_sender: Address::repeat_byte(1),
        destination_blockchain_id: Id([2; 32]),
        destination_address: Address::repeat_byte(3),
        required_gas_limit: U256::from(200_000),
        allowed_relayers: vec![Address::repeat_byte(4), Address::repeat_byte(5)],
        receipts: vec![Receipt {
            received_message_nonce: U256::from(8),
            relayer_reward_address: Address::repeat_byte(6),
        }],
        message: b"a payload of more than one word, padded".to_vec(),
    };
    let bare = TeleporterMessage {
        allowed_relayers: Vec::new(),
        receipts: Vec::new(),
        message: Vec::new(),
        ..message.clone()
    };
    assert_survives(
        "teleporter message",
        &[message.encode(), bare.encode()],
        20_000,
        TeleporterMessage::decode,
        TeleporterMessage::encode,
    );
    let fee = FeeInfo {
        token: Address::repeat_byte(7),
        amount: U256::from(300),
    };
    let events = [
        TeleporterEvent::Sent {
            message_id: Id([10; 32]),
            message: message.clone(),
            fee,
        },
        TeleporterEvent::Received {
            message_id: Id([10; 32]),
            source_blockchain_id: Id([11; 32]),
            deliverer: Address::repeat_byte(12),
            reward_redeemer: Address::repeat_byte(13),
            message: message.clone(),
        },
        TeleporterEvent::ExecutionFailed {
            message_id: Id([10; 32]),
            source_blockchain_id: Id([11; 32]),
            message,
        },
        TeleporterEvent::FeeAdded {
            message_id: Id([10; 32]),
            fee,
        },
        TeleporterEvent::ReceiptReceived {
            message_id: Id([10; 32]),
            destination_blockchain_id: Id([2; 32]),
            relayer_reward_address: Address::repeat_byte(14),
            fee,
        },
    ];
    for event in events {
        let topics = event.topics();
        assert_survives(
            "teleporter event",
            &[event.data()],
            5_000,
            |data| TeleporterEvent::decode(&topics, data),
            TeleporterEvent::data,
        );
    }
}
