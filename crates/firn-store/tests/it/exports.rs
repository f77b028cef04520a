//! Export jobs: scoped to their owner, leased one process at a time (and taken over when a
//! lease runs out, starting over), their file appended and read in order, and expiry.

use firn_store::rows::exports::{ExportChunk, ExportOutcome, ExportStatus, NewExportJob};
use firn_store::{ExportStore, Store};

fn job(id: &str, owner: &str, created_at: u64) -> NewExportJob {
    NewExportJob {
        id: id.to_owned(),
        owner: owner.to_owned(),
        job_type: "TRANSACTION_EXPORT_EVM".to_owned(),
        request: "{\"addresses\":[]}".to_owned(),
        download_url: format!("http://firn.test/v1/operations/{id}/file"),
        created_at,
        expires_at: created_at + 1_000,
    }
}

fn chunk(seq: u64, data: &[u8]) -> ExportChunk {
    ExportChunk {
        seq,
        data: data.to_vec(),
    }
}

pub async fn export_jobs_leases_chunks_and_expiry(store: Store) {
    store
        .create_export_job(&job("a", "alice", 100))
        .await
        .unwrap();
    store
        .create_export_job(&job("b", "alice", 200))
        .await
        .unwrap();
    let generation = store.generation();

    let found = store.find_export_job("alice", "a").await.unwrap().unwrap();
    assert_eq!(found.status, ExportStatus::Running);
    assert_eq!(
        (found.progress, found.created_at, found.updated_at),
        (0, 100, 100)
    );
    assert!(found.code.is_none() && found.next_date.is_none());
    assert!(
        store.find_export_job("bob", "a").await.unwrap().is_none(),
        "another owner's job is not found"
    );

    // The oldest job first; a held job is not given to another worker until its lease ends.
    let leased = store
        .lease_export_job("w1", 1_000, 2_000)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(leased.id, "a");
    let other = store
        .lease_export_job("w2", 1_500, 5_000)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(other.id, "b", "w2 gets the job w1 does not hold");
    assert!(
        store
            .lease_export_job("w3", 1_500, 2_500)
            .await
            .unwrap()
            .is_none()
    );

    // Hostile bytes go in and come out as they are.
    let bytes = b"x,\"y\"\r\n\0\xff";
    assert!(
        store
            .append_export_chunk("a", "w1", &chunk(0, bytes), 1, 3_000)
            .await
            .unwrap()
    );
    assert!(
        store
            .append_export_chunk("a", "w1", &chunk(1, b"two"), 2, 3_000)
            .await
            .unwrap()
    );
    assert!(
        !store
            .append_export_chunk("a", "w2", &chunk(2, b"no"), 3, 3_000)
            .await
            .unwrap(),
        "a worker without the lease writes nothing"
    );
    let chunks = store.list_export_chunks("a", 0, 10).await.unwrap();
    assert_eq!(chunks, vec![chunk(0, bytes), chunk(1, b"two")]);
    assert_eq!(
        store.list_export_chunks("a", 1, 10).await.unwrap(),
        vec![chunk(1, b"two")]
    );
    assert_eq!(store.list_export_chunks("a", 0, 1).await.unwrap().len(), 1);
    assert_eq!(
        store
            .find_export_job("alice", "a")
            .await
            .unwrap()
            .unwrap()
            .progress,
        2
    );

    // w1's lease (renewed to 3000 by its append) runs out: w3 takes the job over and it starts over.
    assert!(
        store
            .lease_export_job("w3", 2_900, 4_000)
            .await
            .unwrap()
            .is_none()
    );
    let taken = store
        .lease_export_job("w3", 3_001, 9_000)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((taken.id.as_str(), taken.progress), ("a", 0));
    assert!(
        store
            .list_export_chunks("a", 0, 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        !store
            .append_export_chunk("a", "w1", &chunk(0, b"late"), 1, 9_000)
            .await
            .unwrap()
    );

    let outcome = ExportOutcome {
        status: ExportStatus::CompletedWithWarning,
        code: Some("WarnTruncatedExport".to_owned()),
        message: None,
        next_date: Some("2024-01-02".to_owned()),
        expires_at: 10_000,
    };
    assert!(
        store
            .append_export_chunk("a", "w3", &chunk(0, b"rows"), 5, 9_000)
            .await
            .unwrap()
    );
    assert!(
        !store
            .finish_export_job("a", "w1", &outcome, 3_500)
            .await
            .unwrap()
    );
    assert!(
        store
            .finish_export_job("a", "w3", &outcome, 3_500)
            .await
            .unwrap()
    );
    let done = store.find_export_job("alice", "a").await.unwrap().unwrap();
    assert_eq!(done.status, ExportStatus::CompletedWithWarning);
    assert_eq!(done.code.as_deref(), Some("WarnTruncatedExport"));
    assert_eq!(done.next_date.as_deref(), Some("2024-01-02"));
    assert_eq!(
        (done.progress, done.updated_at, done.expires_at),
        (5, 3_500, 10_000)
    );
    assert!(
        store
            .lease_export_job("w3", 3_600, 9_000)
            .await
            .unwrap()
            .is_none(),
        "a finished job is not leased again (b is still w2's)"
    );

    // A clean shutdown gives w2's job up at once.
    store.release_export_jobs("w2").await.unwrap();
    let b = store
        .lease_export_job("w3", 1_600, 9_000)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(b.id, "b");

    // b expires at 1200 (never finished); a at 10000.
    assert_eq!(store.delete_expired_exports(5_000).await.unwrap(), 1);
    assert!(store.find_export_job("alice", "b").await.unwrap().is_none());
    assert_eq!(store.list_export_chunks("a", 0, 10).await.unwrap().len(), 1);
    assert_eq!(store.delete_expired_exports(10_001).await.unwrap(), 1);
    assert!(store.find_export_job("alice", "a").await.unwrap().is_none());
    assert!(
        store
            .list_export_chunks("a", 0, 10)
            .await
            .unwrap()
            .is_empty()
    );

    assert_eq!(
        store.generation(),
        generation,
        "export state does not move the store generation"
    );
}
