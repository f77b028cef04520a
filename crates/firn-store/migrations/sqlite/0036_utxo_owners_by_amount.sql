-- Every UTXO of an owner by amount (version 36, SQLite): a list sorted by amount that includes
-- spent UTXOs walked no index and sorted all of the owner's UTXOs on each request, however
-- many it had; it now walks a page of this index.
CREATE INDEX p_utxo_owners_by_amount ON p_utxo_owners (address, amount, utxo_id);
