//! The X-Chain: every asset kind and operation, AVAX moving between X and P through shared
//! memory exactly once, AvalancheGo's rejections, and a restart that keeps it all.

use crate::common::{AVAX, TempDir, config, temp_dir};
use firn_core::avm::fx::{Credential, Fx, FxOutput};
use firn_core::avm::{Tx, UnsignedTx};
use firn_core::ids::{Id, ShortId};
use firn_devnet::clock::Clock;
use firn_devnet::vm::{PChain, TxStatus};
use firn_devnet::wallet::Wallet;
use firn_devnet::xchain::wallet::{XWallet, owner};
use firn_devnet::xchain::{XChain, XTxStatus};
use firn_devnet::{DevnetConfig, TxError};

const MILLI: u64 = 1_000_000;

struct Net {
    p: PChain,
    x: XChain,
    dir: TempDir,
}

fn open(dir: TempDir, config: DevnetConfig) -> Net {
    let clock = Clock::frozen(config.genesis_time);
    let p = PChain::open(config, dir.path().join("p"), clock).unwrap();
    let x = XChain::open(&p, dir.path().join("x")).unwrap();
    Net { p, x, dir }
}

fn net(name: &str) -> Net {
    open(temp_dir(name), config())
}

/// Issues on the X-Chain and builds; the tx must be accepted.
fn accept(x: &XChain, tx: Tx) -> Id {
    let id = x.issue_tx(tx).unwrap();
    x.clock().advance(1);
    assert_eq!(x.build_until_idle().unwrap().len(), 1);
    assert_eq!(x.tx_status(&id), XTxStatus::Accepted);
    id
}

fn accept_p(p: &PChain, tx: firn_core::pchain::tx::Tx) -> Id {
    let id = p.issue_tx(tx).unwrap();
    p.clock().advance(1);
    p.build_until_idle().unwrap();
    assert_eq!(p.tx_status(&id), TxStatus::Committed);
    id
}

fn balance(x: &XChain, who: ShortId, asset: Id) -> u64 {
    x.balances(&[who], false)
        .get(&asset)
        .map_or(0, |b| b.amount)
}

/// A wallet over funded key `i` alone, so balances move only where a test says.
fn wallet(x: &XChain, i: u32) -> XWallet<'_> {
    XWallet::with_keys(x, vec![x.config().funded_key(i)])
}

fn rejection(x: &XChain, tx: Tx) -> String {
    x.issue_tx(tx).unwrap_err().to_string()
}

#[test]
fn genesis_funds_every_key_with_avax_under_the_networks_asset_id() {
    let n = net("x-genesis");
    let avax = n.x.network().avax_asset_id;
    assert_eq!(avax, n.p.network().avax_asset_id);
    assert_eq!(n.x.height(), 0);
    for a in n.x.funded_addresses() {
        assert_eq!(balance(&n.x, a, avax), n.x.config().funded_amount);
    }
    let asset = n.x.asset(&avax).unwrap();
    assert_eq!(
        (asset.name.as_str(), asset.symbol.as_str()),
        ("Avalanche", "AVAX")
    );
    assert_eq!(asset.denomination, 9);
    assert!(matches!(
        n.x.tx(&avax).unwrap().tx.unsigned(),
        UnsignedTx::CreateAsset(_)
    ));
    assert_eq!(n.x.tx_status(&avax), XTxStatus::Accepted);
}

#[test]
fn assets_of_every_kind_are_created_minted_transferred_and_burned() {
    let n = net("x-assets");
    let w = wallet(&n.x, 0);
    let me = n.x.funded_addresses()[0];
    let you = n.x.funded_addresses()[1];
    let avax = n.x.network().avax_asset_id;
    let fees = n.x.fees();
    assert_eq!(fees.tx_fee, MILLI);
    assert_eq!(
        fees.create_asset_tx_fee,
        10 * MILLI,
        "Fuji's CreateAssetTx fee"
    );
    let start = balance(&n.x, me, avax);

    // AVAX, then a fixed-cap asset.
    accept(&n.x, w.send(avax, you, 3 * AVAX).unwrap());
    assert_eq!(
        balance(&n.x, you, avax),
        n.x.config().funded_amount + 3 * AVAX
    );
    let gold = accept(
        &n.x,
        w.create_fixed_cap_asset("Gold Bars", "GOLD", 2, &[(me, 1_000), (you, 5)])
            .unwrap(),
    );
    assert_eq!(balance(&n.x, me, gold), 1_000);
    assert_eq!(balance(&n.x, you, gold), 5);
    accept(&n.x, w.send(gold, you, 400).unwrap());
    assert_eq!(balance(&n.x, me, gold), 600);
    assert_eq!(balance(&n.x, you, gold), 405);
    let described = n.x.asset(&gold).unwrap();
    assert_eq!(
        (
            described.name.as_str(),
            described.symbol.as_str(),
            described.denomination
        ),
        ("Gold Bars", "GOLD", 2)
    );

    // A variable-cap asset, minted twice (the mint output is recreated each time).
    let coin = accept(
        &n.x,
        w.create_variable_cap_asset("Coin", "COIN", 6, &[owner(me)])
            .unwrap(),
    );
    assert_eq!(balance(&n.x, you, coin), 0);
    accept(&n.x, w.mint(coin, you, 70).unwrap());
    accept(&n.x, w.mint(coin, you, 30).unwrap());
    assert_eq!(balance(&n.x, you, coin), 100);

    // An NFT family: mint in group 1, then transfer.
    let art = accept(
        &n.x,
        w.create_nft_family("Art", "ART", 2, &owner(me)).unwrap(),
    );
    accept(&n.x, w.mint_nft(art, 1, b"ipfs://firn", me).unwrap());
    let nft_of = |who: ShortId| {
        n.x.utxos(&[who], None, 100)
            .utxos
            .into_iter()
            .filter(|u| u.asset_id == art)
            .filter_map(|u| match u.output {
                FxOutput::NftTransfer(t) => Some((t.group_id, t.payload.0)),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(nft_of(me), vec![(1, b"ipfs://firn".to_vec())]);
    accept(&n.x, w.transfer_nft(art, you).unwrap());
    assert!(nft_of(me).is_empty());
    assert_eq!(nft_of(you), vec![(1, b"ipfs://firn".to_vec())]);

    // A property: mint, then burn.
    let deed = accept(&n.x, w.create_property("Deed", "DEED", &owner(me)).unwrap());
    accept(&n.x, w.mint_property(deed, me).unwrap());
    let owned = |who| {
        n.x.utxos(&[who], None, 100)
            .utxos
            .iter()
            .filter(|u| matches!(u.output, FxOutput::PropertyOwned(_)))
            .count()
    };
    assert_eq!(owned(me), 1);
    accept(&n.x, w.burn_property(deed).unwrap());
    assert_eq!(owned(me), 0);

    // Every tx burned exactly its static fee: 4 CreateAssetTxs, 8 others.
    let burned = 4 * fees.create_asset_tx_fee + 8 * fees.tx_fee;
    assert_eq!(balance(&n.x, me, avax), start - 3 * AVAX - burned);
    assert_eq!(n.x.height(), 12);
    assert_eq!(n.x.assets().len(), 5);
}

#[test]
fn avax_moves_between_x_and_p_through_shared_memory_exactly_once() {
    let n = net("x-atomic");
    let avax = n.x.network().avax_asset_id;
    let (p_id, x_id) = (n.p.network().p_chain_id, n.x.chain_id());
    let who = n.x.funded_addresses()[2];
    let xw = wallet(&n.x, 0);
    let pw = Wallet::new(&n.p);
    let x_before = balance(&n.x, n.x.funded_addresses()[0], avax);

    // X → P.
    let export = accept(&n.x, xw.export(p_id, who, 50 * AVAX).unwrap());
    let page = n.p.shared_memory().list(&p_id, &x_id, &[who], None, 10).0;
    assert_eq!(page.len(), 1);
    assert_eq!(
        (page[0].tx_id, page[0].output_index),
        (export, 1),
        "after the change output"
    );
    assert_eq!(page[0].output.amount, 50 * AVAX);
    assert_eq!(
        balance(&n.x, n.x.funded_addresses()[0], avax),
        x_before - 50 * AVAX - MILLI
    );
    let p_before = n.p.balance(&[who]).unlocked;
    let import = pw.import(x_id, who).unwrap();
    let fee = n.p.fee_of(import.unsigned()).unwrap();
    accept_p(&n.p, import.clone());
    assert_eq!(n.p.balance(&[who]).unlocked, p_before + 50 * AVAX - fee);
    assert!(
        n.p.shared_memory()
            .list(&p_id, &x_id, &[who], None, 10)
            .0
            .is_empty()
    );
    // The same UTXO cannot be imported twice, even by another tx.
    let firn_core::pchain::tx::UnsignedTx::Import(mut again) = import.unsigned().clone() else {
        panic!("not an import");
    };
    again.base.outputs[0].output =
        firn_core::pchain::fx::Output::Transfer(firn_core::pchain::fx::TransferOutput {
            amount: 50 * AVAX - fee,
            owners: owner(n.x.funded_addresses()[3]),
        });
    let again = firn_core::pchain::tx::UnsignedTx::Import(again);
    let hash = again.signing_hash();
    let key = n.x.config().funded_key(2);
    let creds = vec![firn_core::pchain::fx::Credential {
        signatures: vec![key.sign_hash(&hash).0],
    }];
    assert_eq!(
        n.p.issue_tx(firn_core::pchain::tx::Tx::new(again, creds))
            .unwrap_err(),
        TxError::MissingAtomicUtxo
    );
    assert_eq!(n.p.issue_tx(import).unwrap_err(), TxError::Duplicate);
    assert!(matches!(
        pw.import(x_id, who),
        Err(firn_devnet::wallet::WalletError::InsufficientFunds { .. })
    ));

    // P → X.
    accept_p(&n.p, pw.export(x_id, who, 20 * AVAX).unwrap());
    let x_who = balance(&n.x, who, avax);
    let import = wallet(&n.x, 2).import(p_id, who).unwrap();
    accept(&n.x, import.clone());
    assert_eq!(balance(&n.x, who, avax), x_who + 20 * AVAX - MILLI);
    assert_eq!(rejection(&n.x, import), "duplicate tx");
}

#[test]
fn two_imports_of_one_utxo_conflict_in_the_mempool() {
    let n = net("x-atomic-conflict");
    let p_id = n.p.network().p_chain_id;
    let who = n.x.funded_addresses()[3];
    accept_p(
        &n.p,
        Wallet::new(&n.p)
            .export(n.x.chain_id(), who, 5 * AVAX)
            .unwrap(),
    );
    let first = XWallet::new(&n.x).import(p_id, who).unwrap();
    // The same UTXO imported to another owner: a different tx.
    let second = XWallet::new(&n.x)
        .import(p_id, n.x.funded_addresses()[4])
        .unwrap();
    n.x.issue_tx(first).unwrap();
    assert_eq!(rejection(&n.x, second), "tx conflicts with other tx");
}

#[test]
fn bad_txs_get_avalanchegos_errors_and_change_nothing() {
    let n = net("x-reject");
    let w = XWallet::new(&n.x);
    let me = n.x.funded_addresses()[0];
    let avax = n.x.network().avax_asset_id;
    let fixed = |name: &str, symbol: &str| {
        rejection(
            &n.x,
            w.create_fixed_cap_asset(name, symbol, 0, &[(me, 1)])
                .unwrap(),
        )
    };
    assert_eq!(fixed("", "A"), "name is too short, minimum size is 1");
    assert_eq!(
        fixed("Name", "ABCDE"),
        "symbol is too long, maximum size is 4"
    );
    assert_eq!(fixed(" Name", "A"), "unexpected whitespace provided");
    assert_eq!(
        fixed("Na-me", "A"),
        "asset's name must be made up of only letters and numbers"
    );
    assert_eq!(
        fixed("Name", "ab"),
        "asset's symbol must be all upper case letters"
    );

    // Tampering with a signed tx: the credentials no longer match.
    let tx = w.send(avax, me, AVAX).unwrap();
    let (unsigned, creds) = tx.clone().into_parts();
    let no_creds = Tx::new(unsigned.clone(), Vec::new());
    assert_eq!(
        rejection(&n.x, no_creds),
        format!("wrong number of credentials: 0 != {}", creds.len())
    );
    let nft_creds = creds
        .iter()
        .map(|c| Credential {
            fx: Fx::Nft,
            signatures: c.signatures.clone(),
        })
        .collect();
    assert_eq!(
        rejection(&n.x, Tx::new(unsigned.clone(), nft_creds)),
        "failed to verify transfer: incompatible feature extension"
    );
    let mut wrong_net = unsigned.clone();
    if let UnsignedTx::Base(b) = &mut wrong_net {
        b.network_id += 1;
    }
    assert_eq!(
        rejection(&n.x, Tx::new(wrong_net, creds.clone())),
        "tx has wrong network ID"
    );
    let mut too_much = unsigned;
    if let UnsignedTx::Base(b) = &mut too_much {
        b.outputs.iter_mut().for_each(|o| o.output.amount += 1);
    }
    assert_eq!(
        rejection(&n.x, Tx::new(too_much.clone(), creds.clone())),
        "insufficient funds"
    );

    // A spent UTXO, and an import from a chain outside the primary network.
    accept(&n.x, tx.clone());
    let again = Tx::new(tx.unsigned().clone(), tx.credentials().to_vec());
    assert_eq!(rejection(&n.x, again), "duplicate tx");
    let stranger = Id([7; 32]);
    let import = XWallet::new(&n.x).import(stranger, me);
    assert!(import.is_err(), "nothing to import from {stranger}");
    assert_eq!(n.x.height(), 1, "rejected txs built nothing");
}

#[test]
fn a_restart_keeps_the_x_chain_and_shared_memory() {
    let n = net("x-restart");
    let (p_id, x_id) = (n.p.network().p_chain_id, n.x.chain_id());
    let who = n.x.funded_addresses()[5];
    let xw = XWallet::new(&n.x);
    let pw = Wallet::new(&n.p);
    let me = n.x.funded_addresses()[0];
    let coin = accept(
        &n.x,
        xw.create_variable_cap_asset("Coin", "COIN", 0, &[owner(me)])
            .unwrap(),
    );
    accept(&n.x, xw.mint(coin, who, 9).unwrap());
    // One export imported (X → P), one left waiting (P → X).
    accept(&n.x, xw.export(p_id, who, 7 * AVAX).unwrap());
    accept_p(&n.p, pw.import(x_id, who).unwrap());
    accept_p(&n.p, pw.export(x_id, who, 4 * AVAX).unwrap());
    let heights = (n.p.height(), n.x.height());
    let x_balances = n.x.balances(&[who, me], true);
    let p_balance = n.p.balance(&[who]);
    let last = n.x.last_accepted().unwrap().block.id();

    let Net { p, x, dir } = n;
    drop((p, x));
    let n = open(dir, config());
    assert_eq!((n.p.height(), n.x.height()), heights);
    assert_eq!(n.x.last_accepted().unwrap().block.id(), last);
    assert_eq!(n.x.balances(&[who, me], true), x_balances);
    assert_eq!(n.p.balance(&[who]), p_balance);
    // The X → P UTXO stays imported; the P → X one is still there to import.
    assert!(
        n.p.shared_memory()
            .list(&p_id, &x_id, &[who], None, 10)
            .0
            .is_empty()
    );
    let waiting = n.x.atomic_utxos(&p_id, &[who], None, 10).utxos;
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0].output.amount, 4 * AVAX);
    accept(&n.x, XWallet::new(&n.x).import(p_id, who).unwrap());
    assert_eq!(balance(&n.x, who, coin), 9);
}

#[test]
fn generated_history_trades_every_asset_kind_and_moves_avax_both_ways_without_refusals() {
    use firn_devnet::history::{HistoryGenerator, HistoryPlan};
    use firn_devnet::xchain::history::XHistory;

    let plan = HistoryPlan {
        days: 3,
        transfers_per_day: 8,
        blocks_per_day: 6,
        l1_evm_chain_id: 99_999,
    };
    let mut c = config();
    c.genesis_time = plan.genesis_time(1_767_225_600);
    let n = open(temp_dir("x-history"), c);
    let mut generator = HistoryGenerator::new(&n.p, plan.clone());
    let history = XHistory::new(&n.p, &n.x);
    let (mut txs, mut skipped) = (0, 0);
    for day in 0..plan.days {
        generator
            .generate_day_with(day, |slot, slots| {
                let r = history.slot(day, slot, slots)?;
                txs += r.txs;
                skipped += r.skipped;
                Ok::<_, firn_devnet::DevnetError>(())
            })
            .unwrap();
    }
    assert_eq!(skipped, 0, "every X history tx was accepted");
    assert!(txs >= 3 * 6 * 3, "only {txs} txs");
    let symbols: Vec<String> = n.x.assets().into_iter().map(|a| a.symbol).collect();
    for s in ["AVAX", "GOLD", "COIN", "ART", "DEED"] {
        assert!(
            symbols.iter().any(|x| x == s),
            "{s} missing from {symbols:?}"
        );
    }
    // Blocks carry the virtual days' times, and both directions of AVAX moved.
    let last = n.x.last_accepted().unwrap().block;
    assert!(last.time() >= plan.genesis_time(1_767_225_600) + 2 * 24 * 3600);
    let kinds = |chain: &dyn Fn(u64) -> Vec<&'static str>, height: u64| {
        (1..=height).flat_map(chain).collect::<Vec<_>>()
    };
    let x_kinds = kinds(
        &|h| {
            n.x.block_by_height(h)
                .unwrap()
                .block
                .txs()
                .iter()
                .map(|t| match t.unsigned() {
                    UnsignedTx::Base(_) => "Base",
                    UnsignedTx::CreateAsset(_) => "CreateAsset",
                    UnsignedTx::Operation(_) => "Operation",
                    UnsignedTx::Import(_) => "Import",
                    UnsignedTx::Export(_) => "Export",
                })
                .collect()
        },
        n.x.height(),
    );
    for k in ["Base", "CreateAsset", "Operation", "Import", "Export"] {
        assert!(x_kinds.contains(&k), "no X-Chain {k}Tx in {x_kinds:?}");
    }
    let p_kinds = kinds(
        &|h| {
            n.p.block_by_height(h)
                .unwrap()
                .block
                .txs()
                .map(|t| t.unsigned().type_name())
                .collect()
        },
        n.p.height(),
    );
    for k in ["ImportTx", "ExportTx"] {
        assert!(p_kinds.contains(&k), "no P-Chain {k} in history");
    }
}

/// Hostile bytes: every valid tx kind with bytes flipped at random. Whatever decodes is issued;
/// nothing panics, and a refused tx leaves balances, UTXOs and the mempool as they were.
#[test]
fn mutated_txs_are_refused_without_panics_or_side_effects() {
    use firn_devnet::history::SeededRng;

    let n = net("x-hostile");
    let w = wallet(&n.x, 0);
    let me = n.x.funded_addresses()[0];
    let avax = n.x.network().avax_asset_id;
    let p_id = n.p.network().p_chain_id;
    let coin = accept(
        &n.x,
        w.create_variable_cap_asset("Coin", "COIN", 0, &[owner(me)])
            .unwrap(),
    );
    let art = accept(
        &n.x,
        w.create_nft_family("Art", "ART", 1, &owner(me)).unwrap(),
    );
    accept_p(
        &n.p,
        Wallet::new(&n.p)
            .export(n.x.chain_id(), me, 3 * AVAX)
            .unwrap(),
    );
    let originals: Vec<Tx> = vec![
        w.send(avax, n.x.funded_addresses()[1], AVAX).unwrap(),
        w.mint(coin, me, 5).unwrap(),
        w.mint_nft(art, 0, b"payload", me).unwrap(),
        w.export(p_id, me, AVAX).unwrap(),
        w.import(p_id, me).unwrap(),
        w.create_fixed_cap_asset("Gold", "GOLD", 1, &[(me, 9)])
            .unwrap(),
    ];
    let snapshot = |x: &XChain| {
        (
            x.balances(&n.x.funded_addresses(), true),
            x.utxos(&[me], None, 10_000).utxos.len(),
            x.mempool_len(),
        )
    };
    let before = snapshot(&n.x);
    let mut rng = SeededRng::labelled("x-hostile", "firn", 0);
    let (mut decoded, mut accepted) = (0, 0);
    for tx in &originals {
        let bytes = tx.bytes();
        for _ in 0..400 {
            let mut b = bytes.clone();
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(b.len() as u64) as usize;
                b[i] ^= 1 << rng.below(8);
            }
            if b == bytes {
                continue; // two flips of one bit: the original
            }
            let Ok(mutated) = firn_core::codec::from_bytes::<Tx>(&b) else {
                continue;
            };
            decoded += 1;
            match n.x.issue_tx(mutated) {
                Ok(_) => accepted += 1,
                Err(_) => assert_eq!(snapshot(&n.x), before, "a refused tx changed the state"),
            }
        }
    }
    // Every byte of these txs is signed or checked, so no mutation may pass.
    assert!(decoded > 500, "only {decoded} mutations decoded");
    assert_eq!(accepted, 0, "a mutated tx was accepted");
    // An original still goes through (they all spend key 0's AVAX, so one of them).
    let first = originals.into_iter().next().unwrap();
    n.x.issue_tx(first).unwrap();
}

#[test]
fn two_p_chain_imports_of_one_utxo_conflict_in_the_mempool() {
    let n = net("p-atomic-conflict");
    let x_id = n.x.chain_id();
    let who = n.x.funded_addresses()[6];
    accept(
        &n.x,
        wallet(&n.x, 6)
            .export(n.p.network().p_chain_id, who, 5 * AVAX)
            .unwrap(),
    );
    let first = Wallet::new(&n.p).import(x_id, who).unwrap();
    let second = Wallet::new(&n.p)
        .import(x_id, n.x.funded_addresses()[7])
        .unwrap();
    n.p.issue_tx(first).unwrap();
    assert_eq!(
        n.p.issue_tx(second).unwrap_err(),
        TxError::ConflictsWithOtherTx
    );
}
