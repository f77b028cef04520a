//! The AvalancheGo envelope: gorilla/rpc `json2` with AvalancheGo's codec, as served at
//! `/ext/bc/P`, `/ext/info`, `/ext/health` and `/ext/bc/<chain>/validators`.
//!
//! An [`AvaService`] is a named set of methods (`platform`, `info`, …); an [`AvaServer`] binds
//! services to a state and answers requests for one endpoint. The rules, from gorilla/rpc v1.2.0
//! and `avalanchego/utils/json/codec.go`:
//! - `POST` only, `Content-Type` cut at `;` and lower-cased must be `application/json`;
//! - one request per body (no batches), `{"jsonrpc":"2.0","method":"svc.method","params":…,"id":…}`,
//!   keys matched case-insensitively, trailing bytes ignored;
//! - `svc.getFoo` looks up Go method `GetFoo`; a method starting upper-case is refused;
//! - `params` is an object, or an array whose first element is the object; absent = zero values;
//! - every error is HTTP 200 with `data` present; a request without `id` gets no body (unless
//!   it could not be parsed).

use std::collections::HashMap;
use std::fmt::Display;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderValue, Method, Request, StatusCode, header};
use axum::response::Response;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::error::{INVALID_REQUEST, PARSE_ERROR, SERVER_ERROR};
use crate::gojson::{TopLevel, compact, escape_html, fold_eq, go_quote, go_syntax_message, kind};
use crate::server::{BoxFuture, Endpoint, Limits, read_body, text_response};

/// AvalancheGo's text for params that do not decode (it replaces json2's own error).
pub const INVALID_ARG_MESSAGE: &str = "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls";

/// The reply a handler gives when it has nothing to say: `{}` (AvalancheGo's `api.EmptyReply`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct EmptyReply {}

/// A handler's outcome once params were decoded: the result as JSON, or the error message.
type MethodOutput = Result<Vec<u8>, String>;

/// A registered method with its types erased.
trait AvaMethod<S>: Send + Sync {
    /// Decodes `params` (`None` for absent or `null`) and starts the handler; `Err(())` when the
    /// params do not decode.
    fn start(&self, state: S, params: Option<&RawValue>) -> Result<BoxFuture<MethodOutput>, ()>;
}

struct FnMethod<F, P, R, E> {
    f: F,
    _types: PhantomData<fn(P) -> (R, E)>,
}

/// Decodes avalanche-style params with Go's rules: object, or an array holding it first.
fn decode_params<P: DeserializeOwned>(params: Option<&RawValue>) -> Result<P, serde_json::Error> {
    let value = match params {
        None => Value::Object(Map::new()),
        Some(raw) => serde_json::from_str(raw.get())?,
    };
    let value = match value {
        Value::Array(items) => items.into_iter().next().unwrap_or(Value::Null),
        other => other,
    };
    match value {
        Value::Null => crate::params::from_value(Value::Object(Map::new())),
        other => crate::params::from_value(other),
    }
}

impl<S, F, P, R, E, Fut> AvaMethod<S> for FnMethod<F, P, R, E>
where
    S: Send + 'static,
    F: Fn(S, P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, E>> + Send + 'static,
    P: DeserializeOwned + Send + 'static,
    R: Serialize + 'static,
    E: Display + 'static,
{
    fn start(&self, state: S, params: Option<&RawValue>) -> Result<BoxFuture<MethodOutput>, ()> {
        let params: P = decode_params(params).map_err(|_| ())?;
        let fut = (self.f)(state, params);
        Ok(Box::pin(async move {
            match fut.await {
                Ok(reply) => serde_json::to_vec(&reply).map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            }
        }))
    }
}

/// A named service (`platform`, `info`, `health`, `validators`, …): one async handler per method.
///
/// ```
/// use firn_rpc::avalanche::AvaService;
///
/// #[derive(serde::Serialize)]
/// struct NetworkId {
///     #[serde(rename = "networkID", with = "firn_rpc::avajson::u32_string")]
///     network_id: u32,
/// }
///
/// /// `info.getNetworkID`
/// async fn get_network_id(state: u32, _: ()) -> Result<NetworkId, std::convert::Infallible> {
///     Ok(NetworkId { network_id: state })
/// }
///
/// let info = AvaService::new("info").method("getNetworkID", get_network_id);
/// assert!(info.has_method("getNetworkID"));
/// ```
pub struct AvaService<S> {
    name: String,
    methods: HashMap<String, Arc<dyn AvaMethod<S>>>,
}

impl<S> std::fmt::Debug for AvaService<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut methods: Vec<_> = self.methods.keys().collect();
        methods.sort();
        f.debug_struct("AvaService")
            .field("name", &self.name)
            .field("methods", &methods)
            .finish()
    }
}

impl<S> Clone for AvaService<S> {
    fn clone(&self) -> Self {
        Self {
            name: self.name.clone(),
            methods: self.methods.clone(),
        }
    }
}

/// Upper-cases the first letter, as AvalancheGo does to find the Go method (`getBlock` →
/// `GetBlock`).
fn go_method_name(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => {
            let mut upper = first.to_uppercase();
            let head = match (upper.next(), upper.next()) {
                (Some(u), None) => u,
                _ => first,
            };
            std::iter::once(head).chain(chars).collect()
        }
        None => String::new(),
    }
}

impl<S: Clone + Send + Sync + 'static> AvaService<S> {
    /// An empty service; `name` is the part of the wire method before the dot.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            methods: HashMap::new(),
        }
    }

    /// The service name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Registers `handler` as `<service>.<method>` (`method` as clients write it, e.g.
    /// `getBlock`). The handler gets the server state and the decoded params, and returns the
    /// reply or an error whose `Display` text becomes the `-32000` message. Registering a name
    /// twice keeps the last handler.
    pub fn method<P, R, E, F, Fut>(mut self, method: &str, handler: F) -> Self
    where
        F: Fn(S, P) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, E>> + Send + 'static,
        P: DeserializeOwned + Send + 'static,
        R: Serialize + 'static,
        E: Display + 'static,
    {
        let erased: Arc<dyn AvaMethod<S>> = Arc::new(FnMethod {
            f: handler,
            _types: PhantomData,
        });
        self.methods.insert(go_method_name(method), erased);
        self
    }

    /// Registers `handler` for the declared method `M` ([`crate::methods`]): its params and
    /// reply are `M`'s, so the server and the clients agree on them by construction. `M` must
    /// be a method of this service (checked in debug builds, so by the tests).
    pub fn handle<M, E, F, Fut>(self, handler: F) -> Self
    where
        M: crate::methods::Method,
        F: Fn(S, M::Params) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<M::Reply, E>> + Send + 'static,
        E: Display + 'static,
    {
        let (service, method) = M::NAME.split_once('.').unwrap_or(("", M::NAME));
        debug_assert_eq!(
            service,
            self.name,
            "{} is not a method of this service",
            M::NAME
        );
        self.method(method, handler)
    }

    /// Whether `method` (as clients write it) is registered.
    pub fn has_method(&self, method: &str) -> bool {
        self.methods.contains_key(&go_method_name(method))
    }
}

/// One AvalancheGo-style endpoint: services bound to a state.
pub struct AvaServer<S> {
    state: S,
    services: HashMap<String, AvaService<S>>,
}

impl<S> std::fmt::Debug for AvaServer<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AvaServer")
            .field("services", &self.services.values().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// The request fields json2 decodes, kept raw where Go keeps them raw.
#[derive(Debug, Default)]
struct ServerRequest<'a> {
    version: String,
    method: String,
    params: Option<&'a RawValue>,
    id: Option<&'a RawValue>,
}

impl ServerRequest<'_> {
    /// The request as json2 echoes it in `data`.
    fn to_json(&self) -> String {
        let raw = |r: Option<&RawValue>| r.map_or_else(|| "null".to_owned(), |r| compact(r.get()));
        format!(
            r#"{{"jsonrpc":{},"method":{},"params":{},"id":{}}}"#,
            json_string(&self.version),
            json_string(&self.method),
            raw(self.params),
            raw(self.id)
        )
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

/// What the envelope decided: the body to send (none for notifications) and whether the handler
/// ran (gorilla only sets `x-content-type-options` then).
#[derive(Debug)]
pub(crate) struct Answer {
    body: Option<Vec<u8>>,
    handler_ran: bool,
}

fn error_body(code: i64, message: &str, data: &str, id: Option<&RawValue>) -> Vec<u8> {
    let id = id.map_or_else(|| "null".to_owned(), |r| compact(r.get()));
    let text = format!(
        "{{\"jsonrpc\":\"2.0\",\"error\":{{\"code\":{code},\"message\":{},\"data\":{data}}},\"id\":{id}}}\n",
        json_string(message)
    );
    escape_html(text.into_bytes())
}

fn result_body(result: &[u8], id: &RawValue) -> Vec<u8> {
    let id = compact(id.get());
    let mut out = Vec::with_capacity(result.len() + id.len() + 36);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","result":"#);
    out.extend_from_slice(result);
    out.extend_from_slice(br#","id":"#);
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(b"}\n");
    escape_html(out)
}

/// Decodes the top-level request as Go's decoder into `json2.serverRequest` would: the first
/// type error is kept and decoding goes on.
fn decode_request<'a>(members: Vec<(String, &'a RawValue)>) -> (ServerRequest<'a>, Option<String>) {
    let mut req = ServerRequest::default();
    let mut first_err = None;
    for (key, value) in members {
        let field = ["jsonrpc", "method", "params", "id"]
            .into_iter()
            .find(|f| *f == key)
            .or_else(|| {
                ["jsonrpc", "method", "params", "id"]
                    .into_iter()
                    .find(|f| fold_eq(f, &key))
            });
        let Some(field) = field else { continue };
        let is_null = kind(value) == "null";
        match field {
            "params" => req.params = (!is_null).then_some(value),
            "id" => req.id = (!is_null).then_some(value),
            _ if is_null => {}
            _ => match serde_json::from_str::<String>(value.get()) {
                Ok(s) if field == "jsonrpc" => req.version = s,
                Ok(s) => req.method = s,
                Err(_) => {
                    first_err.get_or_insert_with(|| {
                        format!(
                            "json: cannot unmarshal {} into Go struct field serverRequest.{field} of type string",
                            kind(value)
                        )
                    });
                }
            },
        }
    }
    (req, first_err)
}

impl<S: Clone + Send + Sync + 'static> AvaServer<S> {
    /// A server with no services, handing `state` to every handler.
    pub fn new(state: S) -> Self {
        Self {
            state,
            services: HashMap::new(),
        }
    }

    /// Adds a service (replacing one of the same name).
    pub fn service(mut self, service: AvaService<S>) -> Self {
        self.services.insert(service.name.clone(), service);
        self
    }

    /// Answers one request body in process, without HTTP: the response body, or `None` when
    /// the request was a notification. `timeout` bounds the handler.
    pub async fn call_raw(&self, body: &[u8], timeout: Option<Duration>) -> Option<Vec<u8>> {
        self.answer(body, timeout).await.body
    }

    pub(crate) async fn answer(&self, body: &[u8], timeout: Option<Duration>) -> Answer {
        let text = String::from_utf8_lossy(body);
        let no_body = Answer {
            body: None,
            handler_ran: false,
        };
        let parse_error = |message: &str, req: &ServerRequest<'_>| Answer {
            body: Some(error_body(PARSE_ERROR, message, &req.to_json(), req.id)),
            handler_ran: false,
        };
        let members = match crate::gojson::top_level(&text) {
            Ok(TopLevel::Object(m)) => m,
            // `null` decodes to an empty request: invalid version, no id, so nothing is sent.
            Ok(TopLevel::Other("null")) => return no_body,
            Ok(TopLevel::Other(kind)) => {
                let msg = format!(
                    "json: cannot unmarshal {kind} into Go value of type json2.serverRequest"
                );
                return parse_error(&msg, &ServerRequest::default());
            }
            Err(e) => return parse_error(&go_syntax_message(&text, &e), &ServerRequest::default()),
        };
        let (req, decode_err) = decode_request(members);
        if let Some(msg) = decode_err {
            return parse_error(&msg, &req);
        }
        let Some(id) = req.id else {
            // A notification: run the handler (its effects count) but send nothing.
            if req.version == "2.0"
                && let Ok(fut) = self.lookup_and_start(&req)
            {
                let _ = run_with_timeout(fut, timeout).await;
                return Answer {
                    body: None,
                    handler_ran: true,
                };
            }
            return no_body;
        };
        if req.version != "2.0" {
            return Answer {
                body: Some(error_body(
                    INVALID_REQUEST,
                    "jsonrpc must be 2.0",
                    &req.to_json(),
                    Some(id),
                )),
                handler_ran: false,
            };
        }
        let fut = match self.lookup_and_start(&req) {
            Ok(fut) => fut,
            Err(message) => {
                return Answer {
                    body: Some(error_body(SERVER_ERROR, &message, "null", Some(id))),
                    handler_ran: false,
                };
            }
        };
        let body = match run_with_timeout(fut, timeout).await {
            Ok(result) => result_body(&result, id),
            Err(message) => error_body(SERVER_ERROR, &message, "null", Some(id)),
        };
        Answer {
            body: Some(body),
            handler_ran: true,
        }
    }

    /// Finds the method (AvalancheGo's renaming, then gorilla's lookup) and decodes the params.
    fn lookup_and_start(&self, req: &ServerRequest<'_>) -> Result<BoxFuture<MethodOutput>, String> {
        let method = match req.method.split_once('.') {
            Some((service, function)) => match function.chars().next() {
                Some(c) if c.is_uppercase() => {
                    return Err("method must start with a non-uppercase letter".to_owned());
                }
                Some(_) => format!("{service}.{}", go_method_name(function)),
                None => req.method.clone(),
            },
            None => req.method.clone(),
        };
        let parts: Vec<&str> = method.split('.').collect();
        let [service, function] = parts[..] else {
            return Err(format!(
                "rpc: service/method request ill-formed: {}",
                go_quote(&method)
            ));
        };
        let Some(service) = self.services.get(service) else {
            return Err(format!("rpc: can't find service {}", go_quote(&method)));
        };
        let Some(handler) = service.methods.get(function) else {
            return Err(format!("rpc: can't find method {}", go_quote(&method)));
        };
        handler
            .start(self.state.clone(), req.params)
            .map_err(|()| INVALID_ARG_MESSAGE.to_owned())
    }
}

async fn run_with_timeout(fut: BoxFuture<MethodOutput>, timeout: Option<Duration>) -> MethodOutput {
    match timeout {
        Some(limit) => tokio::time::timeout(limit, fut)
            .await
            .unwrap_or_else(|_| Err("request timed out".to_owned())),
        None => fut.await,
    }
}

impl<S: Clone + Send + Sync + 'static> Endpoint for AvaServer<S> {
    fn serve(self: Arc<Self>, request: Request<Body>, limits: Limits) -> BoxFuture<Response> {
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            if parts.method != Method::POST {
                let msg = format!("rpc: POST method required, received {}", parts.method);
                return text_response(StatusCode::METHOD_NOT_ALLOWED, msg, false);
            }
            let content_type = parts
                .headers
                .get(header::CONTENT_TYPE)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
                .unwrap_or_default();
            let media = content_type.split(';').next().unwrap_or("");
            if media.to_lowercase() != "application/json" {
                let msg = format!("rpc: unrecognized Content-Type: {media}");
                return text_response(StatusCode::UNSUPPORTED_MEDIA_TYPE, msg, false);
            }
            let Ok((bytes, truncated)) = read_body(body, limits.body_limit).await else {
                return text_response(
                    StatusCode::BAD_REQUEST,
                    "rpc: error reading request body".to_owned(),
                    false,
                );
            };
            if truncated {
                return text_response(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "http: request body too large".to_owned(),
                    false,
                );
            }
            let answer = self.answer(&bytes, limits.request_timeout).await;
            let mut response = match answer.body {
                Some(body) => {
                    let mut r = Response::new(Body::from(body));
                    r.headers_mut().insert(
                        header::CONTENT_TYPE,
                        HeaderValue::from_static("application/json; charset=utf-8"),
                    );
                    r
                }
                None => Response::new(Body::empty()),
            };
            if answer.handler_ran {
                response.headers_mut().insert(
                    header::X_CONTENT_TYPE_OPTIONS,
                    HeaderValue::from_static("nosniff"),
                );
            }
            response
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_names_are_capitalised_like_go() {
        assert_eq!(go_method_name("getBlock"), "GetBlock");
        assert_eq!(go_method_name("éa"), "Éa");
        assert_eq!(go_method_name(""), "");
    }

    #[test]
    fn request_decoding_keeps_first_type_error_and_other_fields() {
        let members =
            match crate::gojson::top_level(r#"{"ID":7,"method":5,"jsonrpc":true}"#).unwrap() {
                TopLevel::Object(m) => m,
                TopLevel::Other(k) => panic!("{k}"),
            };
        let (req, err) = decode_request(members);
        assert_eq!(req.id.map(|r| r.get()), Some("7"));
        assert_eq!(
            err.as_deref(),
            Some(
                "json: cannot unmarshal number into Go struct field serverRequest.method of type string"
            )
        );
        assert_eq!(
            req.to_json(),
            r#"{"jsonrpc":"","method":"","params":null,"id":7}"#
        );
    }
}
