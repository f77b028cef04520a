//! Transaction export jobs: what was asked, how far the work is, and the file's pieces.

use crate::rows::text_enum;

text_enum!(
    /// Where a job stands (the wire's `OperationStatus`).
    ExportStatus {
        /// Waiting for, or being worked by, a process.
        Running = "RUNNING",
        /// The file holds every transaction asked for.
        Completed = "COMPLETED",
        /// The file holds the first part; the job says where to continue.
        CompletedWithWarning = "COMPLETED_WITH_WARNING",
        /// The job stopped without a file.
        Failed = "FAILED",
    }
);

/// An export job as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportJobRecord {
    /// Its ID (a UUID).
    pub id: String,
    /// Digest of the API key that created it; empty for requests without a key.
    pub owner: String,
    /// The wire's `operationType` (`TRANSACTION_EXPORT_EVM`, …).
    pub job_type: String,
    /// The validated request, as JSON text: what the worker runs.
    pub request: String,
    /// Where the file is served once the job completes.
    pub download_url: String,
    /// Where it stands.
    pub status: ExportStatus,
    /// The wire's `OperationStatusCode` of a finished job, if any.
    pub code: Option<String>,
    /// Why it failed, or what the warning means.
    pub message: Option<String>,
    /// The day (`YYYY-MM-DD`) a truncated export continues from.
    pub next_date: Option<String>,
    /// Rows written so far.
    pub progress: u64,
    /// Creation time, Unix ms.
    pub created_at: u64,
    /// Last change, Unix ms.
    pub updated_at: u64,
    /// When the job and its file are deleted, Unix ms.
    pub expires_at: u64,
}

/// A job to create: it starts [`ExportStatus::Running`] with no rows, held by nobody.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewExportJob {
    /// Its ID (a UUID).
    pub id: String,
    /// Digest of the API key that creates it.
    pub owner: String,
    /// The wire's `operationType`.
    pub job_type: String,
    /// The validated request, as JSON text.
    pub request: String,
    /// Where the file will be served.
    pub download_url: String,
    /// Creation time, Unix ms.
    pub created_at: u64,
    /// When the job is deleted if it never finishes, Unix ms.
    pub expires_at: u64,
}

/// How a job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportOutcome {
    /// The final status (not [`ExportStatus::Running`]).
    pub status: ExportStatus,
    /// The wire's `OperationStatusCode`, if any.
    pub code: Option<String>,
    /// Why it failed, or what the warning means.
    pub message: Option<String>,
    /// The day a truncated export continues from.
    pub next_date: Option<String>,
    /// When the job and its file are deleted, Unix ms.
    pub expires_at: u64,
}

/// A piece of a job's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportChunk {
    /// Position in the file, from 0.
    pub seq: u64,
    /// The bytes.
    pub data: Vec<u8>,
}
