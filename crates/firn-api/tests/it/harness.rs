//! Calls an API over a test store (made by `firn_store::testing`, on each backend) and reads
//! its replies.

use std::future::Future;

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use firn_api::{ApiConfig, AppState};
use firn_store::Store;
use tower::ServiceExt;

/// Runs `body` on a fresh SQLite store.
pub async fn sqlite<F, Fut>(body: F)
where
    F: FnOnce(Store) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    firn_store::testing::sqlite(body).await;
}

/// A response as a test sees it.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub json: serde_json::Value,
}

impl Reply {
    /// Asserts the official error body with `status`, and that some message contains `needle`.
    #[track_caller]
    pub fn assert_error(&self, status: u16, needle: &str) {
        assert_eq!(self.status.as_u16(), status, "{}", self.json);
        assert_eq!(self.json["statusCode"], status, "{}", self.json);
        assert_eq!(
            self.json["error"],
            self.status.canonical_reason().unwrap(),
            "{}",
            self.json
        );
        let text = self.json["message"].to_string();
        assert!(
            self.json["message"].is_string() || self.json["message"].is_array(),
            "{}",
            self.json
        );
        assert!(text.contains(needle), "message {text} lacks {needle:?}");
        assert_eq!(
            self.headers["content-type"], "application/json",
            "{}",
            self.json
        );
    }

    /// The body of a 200.
    #[track_caller]
    pub fn ok(self) -> serde_json::Value {
        assert_eq!(self.status, StatusCode::OK, "{}", self.json);
        self.json
    }

    /// The `nextPageToken`, if any (asserting it is never `null` or empty).
    pub fn next_token(&self) -> Option<String> {
        let t = self.json.get("nextPageToken")?;
        let s = t.as_str().expect("nextPageToken is a string");
        assert!(!s.is_empty(), "empty nextPageToken");
        Some(s.to_owned())
    }
}

/// The app over a store, called in process.
#[derive(Debug, Clone)]
pub struct Api {
    pub app: axum::Router,
}

impl Api {
    pub fn new(store: Store) -> Self {
        Self::with_config(store, ApiConfig::default())
    }

    pub fn with_config(store: Store, config: ApiConfig) -> Self {
        Self {
            app: firn_api::app(AppState::new(store, config)),
        }
    }

    /// The Metrics API over `store`, on the wall clock and the default configuration.
    pub fn metrics(store: Store) -> Self {
        Self::metrics_with_config(store, ApiConfig::default())
    }

    /// The Metrics API over `store` with `config`, on the wall clock.
    pub fn metrics_with_config(store: Store, config: ApiConfig) -> Self {
        let state = firn_api::MetricsState::new(AppState::new(store, config));
        Self {
            app: firn_api::metrics_router(state),
        }
    }

    pub async fn request(&self, request: Request<Body>) -> Reply {
        let response = self.app.clone().oneshot(request).await.expect("infallible");
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = axum::body::to_bytes(response.into_body(), 16 << 20)
            .await
            .expect("body");
        let json = if bytes.is_empty() {
            serde_json::Value::Null
        } else {
            serde_json::from_slice(&bytes).unwrap_or_else(|_| {
                serde_json::Value::String(String::from_utf8_lossy(&bytes).into_owned())
            })
        };
        Reply {
            status,
            headers,
            json,
        }
    }

    pub async fn get(&self, uri: &str) -> Reply {
        self.request(Request::get(uri).body(Body::empty()).unwrap())
            .await
    }

    /// GET that must answer 200.
    pub async fn ok(&self, uri: &str) -> serde_json::Value {
        let r = self.get(uri).await;
        assert_eq!(r.status, StatusCode::OK, "{uri}: {}", r.json);
        r.json
    }

    /// Follows `nextPageToken` from `uri` (which has a `?`) and returns every item of `field`,
    /// checking each page is at most `page_size` long.
    pub async fn all_pages(
        &self,
        uri: &str,
        field: &str,
        page_size: usize,
    ) -> Vec<serde_json::Value> {
        self.all_pages_of(uri, field, page_size, None).await
    }

    /// [`Api::all_pages`] of GETs, or of POSTs of the JSON `body`.
    pub async fn all_pages_of(
        &self,
        uri: &str,
        field: &str,
        page_size: usize,
        body: Option<&serde_json::Value>,
    ) -> Vec<serde_json::Value> {
        let mut out = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let url = match &token {
                Some(t) => format!("{uri}&pageSize={page_size}&pageToken={t}"),
                None => format!("{uri}&pageSize={page_size}"),
            };
            let r = match body {
                Some(b) => self.post_json(&url, b).await,
                None => self.get(&url).await,
            };
            assert_eq!(r.status, StatusCode::OK, "{url}: {}", r.json);
            let items = r.json[field].as_array().expect("list field").clone();
            assert!(items.len() <= page_size);
            out.extend(items);
            match r.next_token() {
                Some(t) => token = Some(t),
                None => return out,
            }
        }
    }

    /// POST of the JSON `body`.
    pub async fn post_json(&self, uri: &str, body: &serde_json::Value) -> Reply {
        self.request(
            Request::post(uri)
                .header("content-type", "application/json")
                .body(Body::from(body.to_string()))
                .unwrap(),
        )
        .await
    }
}
