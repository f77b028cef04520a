//! The go-ethereum envelope, as subnet-evm and coreth serve it at `/ext/bc/<chain>/rpc`
//! (`graft/evm/rpc` in AvalancheGo: geth's `rpc` package).
//!
//! An [`EthServer`] holds handlers by full wire name (`eth_chainId`) with positional params
//! ([`PositionalParams`]: a tuple, trailing `Option`s may be left out). The rules:
//! - batches: array in → array out in request order, notifications left out, `[]` → one
//!   `-32600 empty batch` object, more than the item limit → `[-32600 batch too large]`, results
//!   past the byte limit → `-32003 response too large` for the rest;
//! - errors: `-32700 parse error`, `-32600 invalid request`, `-32601 the method X does not
//!   exist/is not available`, `-32602 invalid argument 0: …`, handler errors as the handler's
//!   [`ErrorObject`] (default `-32000`), `-32002 request timed out`;
//! - HTTP: `PUT`/`DELETE` → 405, body over the limit → 413, content type other than
//!   `application/json` (or `application/json-rpc`, `application/jsonrequest`) → 415, a bare `GET`
//!   (health check) → 200 with no body.

use std::collections::hash_map::RandomState;
use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::hash::{BuildHasher, Hasher};
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::extract::FromRequestParts;
use axum::extract::ws::WebSocketUpgrade;
use axum::http::{HeaderValue, Method, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use tokio::time::Instant;

use crate::error::{
    ErrorObject, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR,
    RESPONSE_TOO_LARGE, SERVER_ERROR, TIMEOUT_ERROR,
};
use crate::gojson::{TopLevel, compact, escape_html, fold_eq, kind};
use crate::server::{BoxFuture, Endpoint, Limits, read_body, text_response};
use crate::ws::{
    MAX_SOCKETS, SubscribeFn, is_subscription_call, notifications_unsupported, serve_socket,
    socket_slot,
};

/// go-ethereum's default limit on the number of calls in a batch.
pub const DEFAULT_BATCH_ITEM_LIMIT: usize = 1000;
/// go-ethereum's default limit on the summed size of a batch's results (25 MB).
pub const DEFAULT_BATCH_RESPONSE_LIMIT: usize = 25_000_000;

/// Positional params: `()` or a tuple of up to six `DeserializeOwned` values, each decoded with
/// Go's rules as geth does ([`crate::params`]: object keys match fields case-insensitively).
/// Missing trailing arguments are read as `null`, so `Option` arguments may be left out.
pub trait PositionalParams: Sized + Send + 'static {
    /// Decodes the array's elements; the error is geth's `-32602` message.
    fn from_positional(args: &[&RawValue]) -> Result<Self, String>;
}

/// Decodes argument `i` of a positional call (absent = `null`).
fn positional_arg<T: DeserializeOwned>(args: &[&RawValue], i: usize) -> Result<T, String> {
    match args.get(i) {
        Some(raw) => crate::params::from_str(raw.get()).map_err(|e| {
            let text = e.to_string();
            let text = text
                .rfind(" at line ")
                .map_or(text.as_str(), |at| &text[..at]);
            format!("invalid argument {i}: {text}")
        }),
        None => crate::params::from_value(serde_json::Value::Null)
            .map_err(|_| format!("missing value for required argument {i}")),
    }
}

fn check_arity(args: &[&RawValue], n: usize) -> Result<(), String> {
    if args.len() > n {
        return Err(format!("too many arguments, want at most {n}"));
    }
    Ok(())
}

impl PositionalParams for () {
    fn from_positional(args: &[&RawValue]) -> Result<Self, String> {
        check_arity(args, 0)
    }
}

macro_rules! tuple_params {
    ($n:expr => $($t:ident $i:tt $v:ident),+) => {
        impl<$($t: DeserializeOwned + Send + 'static),+> PositionalParams for ($($t,)+) {
            fn from_positional(args: &[&RawValue]) -> Result<Self, String> {
                // geth decodes the given arguments in order, stops at the first bad one, then
                // complains about extra ones, then about missing required ones.
                $( let $v = if $i < args.len() { Some(positional_arg::<$t>(args, $i)?) } else { None }; )+
                check_arity(args, $n)?;
                Ok(($(
                    match $v {
                        Some(v) => v,
                        None => positional_arg::<$t>(args, $i)?,
                    },
                )+))
            }
        }
    };
}

tuple_params!(1 => A 0 a);
tuple_params!(2 => A 0 a, B 1 b);
tuple_params!(3 => A 0 a, B 1 b, C 2 c);
tuple_params!(4 => A 0 a, B 1 b, C 2 c, D 3 d);
tuple_params!(5 => A 0 a, B 1 b, C 2 c, D 3 d, E 4 e);
tuple_params!(6 => A 0 a, B 1 b, C 2 c, D 3 d, E 4 e, F 5 f);

type MethodOutput = Result<Vec<u8>, ErrorObject>;

trait EthMethod<S>: Send + Sync {
    fn start(&self, state: S, args: &[&RawValue]) -> Result<BoxFuture<MethodOutput>, String>;
}

struct FnMethod<F, P, R, E> {
    f: F,
    _types: PhantomData<fn(P) -> (R, E)>,
}

impl<S, F, P, R, E, Fut> EthMethod<S> for FnMethod<F, P, R, E>
where
    S: Send + 'static,
    F: Fn(S, P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, E>> + Send + 'static,
    P: PositionalParams,
    R: Serialize + 'static,
    E: Into<ErrorObject> + 'static,
{
    fn start(&self, state: S, args: &[&RawValue]) -> Result<BoxFuture<MethodOutput>, String> {
        let params = P::from_positional(args)?;
        let fut = (self.f)(state, params);
        Ok(Box::pin(async move {
            match fut.await {
                Ok(r) => serde_json::to_vec(&r)
                    .map_err(|e| ErrorObject::new(INTERNAL_ERROR, e.to_string())),
                Err(e) => Err(e.into()),
            }
        }))
    }
}

/// One go-ethereum-style endpoint: handlers by wire name, bound to a state.
///
/// ```
/// use firn_rpc::EthServer;
///
/// /// `web3_clientVersion`
/// async fn client_version(_: (), (): ()) -> Result<&'static str, String> { Ok("firn/v0.1.0") }
/// /// `eth_getBalance`
/// async fn get_balance(_: (), (addr, _block): (String, Option<String>)) -> Result<String, String> {
///     Ok(format!("0x0"))
/// }
/// let server = EthServer::new(())
///     .method("web3_clientVersion", client_version)
///     .method("eth_getBalance", get_balance);
/// ```
pub struct EthServer<S> {
    state: S,
    methods: HashMap<String, Arc<dyn EthMethod<S>>>,
    batch_item_limit: usize,
    batch_response_limit: usize,
    subscriber: Option<SubscribeFn<S>>,
}

impl<S> std::fmt::Debug for EthServer<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut methods: Vec<_> = self.methods.keys().collect();
        methods.sort();
        f.debug_struct("EthServer")
            .field("methods", &methods)
            .field("batch_item_limit", &self.batch_item_limit)
            .field("batch_response_limit", &self.batch_response_limit)
            .finish_non_exhaustive()
    }
}

/// A JSON-RPC message as geth decodes it: keys matched case-insensitively, wrongly typed
/// fields left empty.
#[derive(Debug, Default)]
struct Message<'a> {
    version: String,
    id: Option<&'a RawValue>,
    method: String,
    params: Option<&'a RawValue>,
    has_result: bool,
    has_error: bool,
}

impl<'a> Message<'a> {
    fn parse(raw: &'a RawValue) -> Self {
        let mut msg = Message::default();
        let Ok(TopLevel::Object(members)) = crate::gojson::top_level(raw.get()) else {
            return msg;
        };
        const FIELDS: [&str; 6] = ["jsonrpc", "id", "method", "params", "error", "result"];
        for (key, value) in members {
            let field = FIELDS
                .into_iter()
                .find(|f| *f == key)
                .or_else(|| FIELDS.into_iter().find(|f| fold_eq(f, &key)));
            let string = || serde_json::from_str::<String>(value.get()).ok();
            match field {
                Some("jsonrpc") => msg.version = string().unwrap_or_default(),
                Some("id") => msg.id = Some(value),
                Some("method") => msg.method = string().unwrap_or_default(),
                Some("params") => msg.params = Some(value),
                Some("error") => msg.has_error = kind(value) == "object",
                Some("result") => msg.has_result = true,
                _ => {}
            }
        }
        msg
    }

    fn valid_version(&self) -> bool {
        self.version == "2.0"
    }

    fn valid_id(&self) -> bool {
        self.id
            .is_some_and(|id| !matches!(kind(id), "object" | "array"))
    }

    fn is_notification(&self) -> bool {
        self.valid_version() && self.id.is_none() && !self.method.is_empty()
    }

    fn is_call(&self) -> bool {
        self.valid_version() && self.valid_id() && !self.method.is_empty()
    }

    fn is_response(&self) -> bool {
        self.valid_version()
            && self.valid_id()
            && self.method.is_empty()
            && self.params.is_none()
            && (self.has_result || self.has_error)
    }
}

/// One response object, serialized in geth's key order.
fn response_json(id: Option<&RawValue>, outcome: &MethodOutput) -> String {
    let id = id.map_or_else(|| "null".to_owned(), |r| compact(r.get()));
    match outcome {
        Ok(result) => {
            // Results come from serde_json, so valid UTF-8: `from_utf8`'s ASCII fast path
            // beats `from_utf8_lossy`'s chunk walk on big results (block receipts).
            let text = std::str::from_utf8(result)
                .map_or_else(|_| String::from_utf8_lossy(result), Into::into);
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{text}}}"#)
        }
        Err(e) => {
            let error = serde_json::to_string(e)
                .unwrap_or_else(|_| format!(r#"{{"code":{},"message":"error"}}"#, e.code));
            format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#)
        }
    }
}

fn finish(json: String, newline: bool) -> Vec<u8> {
    let mut bytes = json.into_bytes();
    if newline {
        bytes.push(b'\n');
    }
    escape_html(bytes)
}

fn invalid_request(message: &str) -> MethodOutput {
    Err(ErrorObject::new(INVALID_REQUEST, message))
}

/// The outcome of one message, or `None` when nothing is owed (notification or response).
enum CallResult {
    Answer(String, usize),
    Nothing,
}

impl<S: Clone + Send + Sync + 'static> EthServer<S> {
    /// A server with no methods (besides `rpc_modules`), handing `state` to every handler.
    pub fn new(state: S) -> Self {
        Self {
            state,
            methods: HashMap::new(),
            batch_item_limit: DEFAULT_BATCH_ITEM_LIMIT,
            batch_response_limit: DEFAULT_BATCH_RESPONSE_LIMIT,
            subscriber: None,
        }
    }

    /// Serves `eth_subscribe` over WebSocket with `start` ([`crate::ws`]).
    pub fn subscriptions(mut self, start: SubscribeFn<S>) -> Self {
        self.subscriber = Some(start);
        self
    }

    pub(crate) fn subscriber(&self) -> Option<&SubscribeFn<S>> {
        self.subscriber.as_ref()
    }

    pub(crate) fn state(&self) -> &S {
        &self.state
    }

    /// Registers `handler` under its full wire name (`eth_chainId`); the last registration of
    /// a name wins. The handler gets the state and the decoded positional params.
    pub fn method<P, R, E, F, Fut>(mut self, name: &str, handler: F) -> Self
    where
        F: Fn(S, P) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, E>> + Send + 'static,
        P: PositionalParams,
        R: Serialize + 'static,
        E: Into<ErrorObject> + 'static,
    {
        let erased: Arc<dyn EthMethod<S>> = Arc::new(FnMethod {
            f: handler,
            _types: PhantomData,
        });
        self.methods.insert(name.to_owned(), erased);
        self
    }

    /// Sets the batch limits (calls per batch, summed result bytes); 0 means no limit.
    pub fn batch_limits(mut self, items: usize, response_bytes: usize) -> Self {
        self.batch_item_limit = items;
        self.batch_response_limit = response_bytes;
        self
    }

    /// Answers one request body in process, without HTTP: the response body, or `None` when
    /// nothing is owed (notifications only, or an empty body).
    pub async fn call_raw(&self, body: &[u8], timeout: Option<Duration>) -> Option<Vec<u8>> {
        let text = String::from_utf8_lossy(body);
        let first = serde_json::Deserializer::from_str(&text)
            .into_iter::<&RawValue>()
            .next();
        let raw = match first {
            None => return None,
            Some(Ok(raw)) => raw,
            Some(Err(_)) => {
                let out: MethodOutput = Err(ErrorObject::new(PARSE_ERROR, "parse error"));
                return Some(finish(response_json(None, &out), false));
            }
        };
        let deadline = timeout.map(|t| Instant::now() + t);
        if kind(raw) != "array" {
            return match self.handle_message(&Message::parse(raw), deadline).await {
                Ok(CallResult::Answer(json, _)) => Some(finish(json, true)),
                Ok(CallResult::Nothing) => None,
                Err(timed_out) => Some(finish(timed_out, false)),
            };
        }
        let items: Vec<&RawValue> = serde_json::from_str(raw.get()).unwrap_or_default();
        self.handle_batch(&items, deadline).await
    }

    async fn handle_batch(
        &self,
        items: &[&RawValue],
        deadline: Option<Instant>,
    ) -> Option<Vec<u8>> {
        if items.is_empty() {
            return Some(finish(
                response_json(None, &invalid_request("empty batch")),
                false,
            ));
        }
        let messages: Vec<Message<'_>> = items.iter().map(|raw| Message::parse(raw)).collect();
        if self.batch_item_limit != 0 && messages.len() > self.batch_item_limit {
            let id = messages.iter().find(|m| m.is_call()).and_then(|m| m.id);
            let one = response_json(id, &invalid_request("batch too large"));
            return Some(finish(format!("[{one}]"), false));
        }
        let calls: Vec<&Message<'_>> = messages.iter().filter(|m| !m.is_response()).collect();
        if calls.is_empty() {
            return None;
        }
        let mut answers = Vec::with_capacity(calls.len());
        let mut result_bytes = 0usize;
        let mut failed: Option<(usize, ErrorObject)> = None;
        for (i, msg) in calls.iter().enumerate() {
            match self.handle_message(msg, deadline).await {
                Ok(CallResult::Answer(json, result_len)) => {
                    answers.push(json);
                    result_bytes += result_len;
                    if self.batch_response_limit != 0 && result_bytes > self.batch_response_limit {
                        let err = ErrorObject::new(RESPONSE_TOO_LARGE, "response too large");
                        failed = Some((i + 1, err));
                        break;
                    }
                }
                Ok(CallResult::Nothing) => {}
                Err(_) => {
                    failed = Some((i, ErrorObject::new(TIMEOUT_ERROR, "request timed out")));
                    break;
                }
            }
        }
        let newline = failed.is_none();
        if let Some((from, err)) = failed {
            for msg in calls.iter().skip(from).filter(|m| !m.is_notification()) {
                answers.push(response_json(msg.id, &Err(err.clone())));
            }
        }
        if answers.is_empty() {
            return None;
        }
        Some(finish(format!("[{}]", answers.join(",")), newline))
    }

    /// Runs one message. `Err` carries the timeout response (written without a newline).
    async fn handle_message(
        &self,
        msg: &Message<'_>,
        deadline: Option<Instant>,
    ) -> Result<CallResult, String> {
        if msg.is_response() {
            return Ok(CallResult::Nothing);
        }
        let notification = msg.is_notification();
        if !notification && !msg.is_call() {
            let id = if msg.valid_id() { msg.id } else { None };
            return Ok(CallResult::Answer(
                response_json(id, &invalid_request("invalid request")),
                0,
            ));
        }
        if notification && msg.method.ends_with("_subscription") {
            return Ok(CallResult::Nothing);
        }
        let outcome = match self.start(msg) {
            Ok(fut) => match deadline {
                Some(d) => match tokio::time::timeout_at(d, fut).await {
                    Ok(out) => out,
                    Err(_) if notification => return Ok(CallResult::Nothing),
                    Err(_) => {
                        let err = ErrorObject::new(TIMEOUT_ERROR, "request timed out");
                        return Err(response_json(msg.id, &Err(err)));
                    }
                },
                None => fut.await,
            },
            Err(err) => Err(err),
        };
        if notification {
            return Ok(CallResult::Nothing);
        }
        let result_len = outcome.as_ref().map_or(0, Vec::len);
        Ok(CallResult::Answer(
            response_json(msg.id, &outcome),
            result_len,
        ))
    }

    /// Finds the handler and decodes the params, or says why not.
    fn start(&self, msg: &Message<'_>) -> Result<BoxFuture<MethodOutput>, ErrorObject> {
        let method = msg.method.as_str();
        if method.ends_with("_subscribe") {
            return Err(ErrorObject::new(
                METHOD_NOT_FOUND,
                "notifications not supported",
            ));
        }
        let args = positional_args(msg.params).map_err(ErrorObject::invalid_params)?;
        if method.ends_with("_unsubscribe") {
            <(String,)>::from_positional(&args).map_err(ErrorObject::invalid_params)?;
            return Err(ErrorObject::new(SERVER_ERROR, "subscription not found"));
        }
        if let Some(handler) = self.methods.get(method) {
            return handler
                .start(self.state.clone(), &args)
                .map_err(|m| ErrorObject::new(INVALID_PARAMS, m));
        }
        if is_subscription_call(method) {
            return Err(notifications_unsupported());
        }
        if method == "rpc_modules" {
            <()>::from_positional(&args).map_err(ErrorObject::invalid_params)?;
            let modules = self.modules();
            return Ok(Box::pin(async move {
                serde_json::to_vec(&modules)
                    .map_err(|e| ErrorObject::new(INTERNAL_ERROR, e.to_string()))
            }));
        }
        Err(ErrorObject::new(
            METHOD_NOT_FOUND,
            format!("the method {method} does not exist/is not available"),
        ))
    }

    /// `rpc_modules`: every namespace with a method, and `rpc`, at version `1.0`.
    fn modules(&self) -> std::collections::BTreeMap<String, &'static str> {
        let mut names: BTreeSet<String> = self
            .methods
            .keys()
            .filter_map(|m| m.split_once('_').map(|(ns, _)| ns.to_owned()))
            .collect();
        names.insert("rpc".to_owned());
        names.into_iter().map(|n| (n, "1.0")).collect()
    }
}

/// The positional arguments: absent or `null` params mean none; anything but an array is
/// refused.
fn positional_args(params: Option<&RawValue>) -> Result<Vec<&RawValue>, String> {
    match params {
        None => Ok(Vec::new()),
        Some(raw) => match kind(raw) {
            "null" => Ok(Vec::new()),
            "array" => serde_json::from_str(raw.get()).map_err(|e| e.to_string()),
            _ => Err("non-array args".to_owned()),
        },
    }
}

/// geth's content types (`mime.ParseMediaType`, then an exact match).
fn accepted_content_type(value: Option<&HeaderValue>) -> bool {
    let Some(value) = value.and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let mut parts = value.split(';');
    let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
    let params_ok = parts.all(|p| {
        let p = p.trim();
        p.is_empty() || p.split_once('=').is_some_and(|(k, _)| !k.trim().is_empty())
    });
    params_ok
        && matches!(
            media.as_str(),
            "application/json" | "application/json-rpc" | "application/jsonrequest"
        )
}

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// A new filter or subscription ID: 128 unpredictable bits, as geth's `rpc.NewID` (hex,
/// leading zeros trimmed).
pub fn new_id() -> String {
    let n = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let word = || {
        let mut h = RandomState::new().build_hasher();
        h.write_u64(n);
        h.finish()
    };
    let id = (u128::from(word()) << 64) | u128::from(word());
    format!("{id:#x}")
}

/// Whether a request asks to switch to WebSocket.
fn is_websocket_upgrade(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

impl<S: Clone + Send + Sync + 'static> Endpoint for EthServer<S> {
    fn serve(self: Arc<Self>, request: Request<Body>, limits: Limits) -> BoxFuture<Response> {
        Box::pin(async move {
            let (mut parts, body) = request.into_parts();
            if is_websocket_upgrade(&parts.headers) {
                let Some(slot) = socket_slot() else {
                    let msg = format!("too many websocket connections ({MAX_SOCKETS})\n");
                    return text_response(StatusCode::SERVICE_UNAVAILABLE, msg, true);
                };
                return match WebSocketUpgrade::from_request_parts(&mut parts, &()).await {
                    Ok(upgrade) => upgrade
                        .max_message_size(limits.body_limit)
                        .max_frame_size(limits.body_limit)
                        .on_upgrade(move |socket| serve_socket(self, socket, limits, slot)),
                    Err(rejection) => rejection.into_response(),
                };
            }
            let content_length = parts
                .headers
                .get(header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<u64>().ok());
            if parts.method == Method::GET
                && content_length.unwrap_or(0) == 0
                && parts.uri.query().is_none()
            {
                return Response::new(Body::empty());
            }
            if parts.method == Method::PUT || parts.method == Method::DELETE {
                return text_response(
                    StatusCode::METHOD_NOT_ALLOWED,
                    "method not allowed\n".to_owned(),
                    true,
                );
            }
            if let Some(len) = content_length.filter(|l| *l > limits.body_limit as u64) {
                let msg = format!("content length too large ({len}>{})\n", limits.body_limit);
                return text_response(StatusCode::PAYLOAD_TOO_LARGE, msg, true);
            }
            if parts.method != Method::OPTIONS
                && !accepted_content_type(parts.headers.get(header::CONTENT_TYPE))
            {
                let msg = "invalid content type, only application/json is supported\n".to_owned();
                return text_response(StatusCode::UNSUPPORTED_MEDIA_TYPE, msg, true);
            }
            // A longer body is cut at the limit, as geth's LimitReader does, and then fails to parse.
            let bytes = match read_body(body, limits.body_limit).await {
                Ok((bytes, _)) => bytes,
                Err(_) => axum::body::Bytes::new(),
            };
            let answer = self.call_raw(&bytes, limits.request_timeout).await;
            let mut response = Response::new(answer.map_or_else(Body::empty, Body::from));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            response
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raws(json: &str) -> Vec<Box<RawValue>> {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn positional_params_follow_geth() {
        let a = raws(r#"["0x1", true]"#);
        let args: Vec<&RawValue> = a.iter().map(|b| b.as_ref()).collect();
        let (x, y): (String, Option<bool>) = PositionalParams::from_positional(&args).unwrap();
        assert_eq!((x.as_str(), y), ("0x1", Some(true)));
        let (x, y): (String, Option<bool>) = PositionalParams::from_positional(&args[..1]).unwrap();
        assert_eq!((x.as_str(), y), ("0x1", None));
        let err = <(String,)>::from_positional(&args).unwrap_err();
        assert_eq!(err, "too many arguments, want at most 1");
        let err = <(String, u64)>::from_positional(&args[..1]).unwrap_err();
        assert_eq!(err, "missing value for required argument 1");
        let err = <(u64,)>::from_positional(&args[..1]).unwrap_err();
        assert!(
            err.starts_with("invalid argument 0: invalid type: string"),
            "{err}"
        );
        let err = <(u64,)>::from_positional(&args).unwrap_err();
        assert!(err.starts_with("invalid argument 0:"), "{err}");
    }

    #[test]
    fn content_types() {
        let ok = |v: &str| accepted_content_type(Some(&HeaderValue::from_str(v).unwrap()));
        assert!(ok("application/json"));
        assert!(ok("Application/JSON; charset=utf-8"));
        assert!(ok("application/json-rpc"));
        assert!(!ok("text/plain"));
        assert!(!ok("application/json; charset"));
        assert!(!accepted_content_type(None));
    }
}
