//! The JSON shapes of the official Data API (as its OpenAPI file names them) and the mapping
//! from store rows to them, one module per resource under [`pchain`] (primary network) and
//! [`evm`]; rules about the values themselves (such as a delegator's reward) live in
//! `firn-core`, not here. Optional fields are left out when unknown (never `null`), as the
//! official clients' validators require.

pub mod cchain;
pub mod evm;
pub mod icm;
pub mod pchain;
pub mod xchain;

use serde::Serialize;
use utoipa::ToSchema;

use firn_store::types::U256;

use crate::config::PriceTable;

/// A price (`Money`): currency code and a JSON number.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Money {
    /// Lower-case currency code (`usd`, …).
    pub currency_code: String,
    /// The price.
    pub value: f64,
}

/// `currency` values the API accepts.
pub const CURRENCIES: [&str; 14] = [
    "usd", "eur", "aud", "cad", "chf", "clp", "cny", "czk", "dkk", "gbp", "hkd", "huf", "jpy",
    "nzd",
];

/// What `amount` (in the smallest unit of a token of `decimals` decimals) is worth at `price`
/// per whole token; absent without a price.
pub fn worth(amount: U256, decimals: u8, price: Option<&Money>) -> Option<Money> {
    let amount: f64 = amount.to_string().parse().unwrap_or(f64::MAX);
    price.map(|p| Money {
        currency_code: p.currency_code.clone(),
        value: amount / 10f64.powi(i32::from(decimals)) * p.value,
    })
}

/// What the operator says about an ERC-20 token beside what the chain says: its price (from
/// the price table) and logo (from the token list).
#[derive(Debug, Clone, Default)]
pub struct TokenExtras {
    /// Price per whole token.
    pub price: Option<Money>,
    /// Logo URI.
    pub logo_uri: Option<String>,
}

/// The price of `asset` in `currency` from the table, as `Money`.
pub fn money(prices: &PriceTable, currency: &str, asset: &str) -> Option<Money> {
    prices.price(currency, asset).map(|value| Money {
        currency_code: currency.to_owned(),
        value,
    })
}
