//! Where each response keeps its senders and recipients, for [`RichAddresses`]: the routes
//! build a response, look up which of its addresses are tokens in one read, and name them.

use super::activity::{
    AnyTransfer, Erc20TransferDetailsV2, InternalTransaction, ListInternalTransactionsResponse,
    ListTransactionDetailsResponse, ListTransactionDetailsResponseV2, ListTransfersResponse,
    TransactionDetails, TransactionDetailsV2,
};
use super::transactions::{
    Erc20TransferDetails, Erc721TransferDetails, Erc1155TransferDetails, GetTransactionResponse,
    InternalTransactionDetails, ListNativeTransactionsResponse, NativeTransaction,
};
use super::transfers::{
    ListErc20TransactionsResponse, ListErc721TransactionsResponse, ListErc1155TransactionsResponse,
    TransferEvent,
};
use super::{RichAddress, RichAddresses};

/// A shape with a sender and a recipient.
trait Parties {
    fn parties(&mut self) -> [&mut RichAddress; 2];
}

macro_rules! parties {
    ($($t:ty),*) => {$(
        impl Parties for $t {
            fn parties(&mut self) -> [&mut RichAddress; 2] {
                [&mut self.from, &mut self.to]
            }
        }
    )*};
}

parties!(
    NativeTransaction,
    TransferEvent,
    Erc20TransferDetails,
    Erc20TransferDetailsV2,
    Erc721TransferDetails,
    Erc1155TransferDetails,
    InternalTransactionDetails
);

fn all<T: Parties>(items: &mut [T]) -> impl Iterator<Item = &mut RichAddress> {
    items.iter_mut().flat_map(Parties::parties)
}

/// The parties of one transaction's details: the transaction, its transfers and calls.
macro_rules! details {
    ($d:expr, $native:expr) => {
        $native
            .parties()
            .into_iter()
            .chain(all(&mut $d.erc20_transfers))
            .chain(all(&mut $d.erc721_transfers))
            .chain(all(&mut $d.erc1155_transfers))
            .chain(all(&mut $d.internal_transactions))
    };
}

impl RichAddresses for ListNativeTransactionsResponse {
    fn rich_addresses(&mut self) -> Vec<&mut RichAddress> {
        all(&mut self.transactions).collect()
    }
}

/// Some transactions of a list: those of one chain, when a list spans several.
impl RichAddresses for Vec<&mut NativeTransaction> {
    fn rich_addresses(&mut self) -> Vec<&mut RichAddress> {
        self.iter_mut().flat_map(|t| t.parties()).collect()
    }
}

impl RichAddresses for GetTransactionResponse {
    fn rich_addresses(&mut self) -> Vec<&mut RichAddress> {
        details!(self, self.native_transaction.native).collect()
    }
}

impl RichAddresses for TransactionDetails {
    fn rich_addresses(&mut self) -> Vec<&mut RichAddress> {
        details!(self, self.native_transaction).collect()
    }
}

impl RichAddresses for TransactionDetailsV2 {
    fn rich_addresses(&mut self) -> Vec<&mut RichAddress> {
        details!(self, self.native_transaction).collect()
    }
}

impl RichAddresses for ListTransactionDetailsResponse {
    fn rich_addresses(&mut self) -> Vec<&mut RichAddress> {
        let txs = self.transactions.iter_mut();
        txs.flat_map(|d| d.rich_addresses()).collect()
    }
}

impl RichAddresses for ListTransactionDetailsResponseV2 {
    fn rich_addresses(&mut self) -> Vec<&mut RichAddress> {
        let txs = self.transactions.iter_mut();
        txs.flat_map(|d| d.rich_addresses()).collect()
    }
}

impl RichAddresses for ListInternalTransactionsResponse {
    fn rich_addresses(&mut self) -> Vec<&mut RichAddress> {
        let txs = self.transactions.iter_mut();
        txs.flat_map(|t: &mut InternalTransaction| t.details.parties())
            .collect()
    }
}

macro_rules! transfer_lists {
    ($($t:ty),*) => {$(
        impl RichAddresses for $t {
            fn rich_addresses(&mut self) -> Vec<&mut RichAddress> {
                let transfers = self.transactions.iter_mut();
                transfers.flat_map(|t| t.event.parties()).collect()
            }
        }
    )*};
}

transfer_lists!(
    ListErc20TransactionsResponse,
    ListErc721TransactionsResponse,
    ListErc1155TransactionsResponse
);

impl RichAddresses for ListTransfersResponse {
    fn rich_addresses(&mut self) -> Vec<&mut RichAddress> {
        let transfers = self.transfers.iter_mut();
        transfers
            .flat_map(|t| match t {
                AnyTransfer::Erc20(t) => t.event.parties(),
                AnyTransfer::Erc721(t) => t.event.parties(),
                AnyTransfer::Erc1155(t) => t.event.parties(),
            })
            .collect()
    }
}
