//! `firn relay --aggregator`: messages signed by a Data API's `aggregateSignatures` (firn's,
//! or a hosted one with `--aggregator-api-key`), for chains whose nodes answer signature
//! requests only over their p2p network (AvalancheGo).
//!
//! The answer is a stranger's: it is read up to [`MAX_ANSWER_BYTES`] within [`TIMEOUT`], and a
//! signed message that is not the one asked for is refused. Its signature is checked where it
//! counts, by the destination chain when it verifies the predicate.

use std::time::Duration;

use firn_aggregator::BoxFuture;
use firn_api::routes::signature_aggregator::{
    SignatureAggregationResponse, SignatureAggregatorRequest,
};
use firn_core::warp::{Message, UnsignedMessage};
use firn_node::relayer::WarpSigner;

/// Largest answer read (a signed message is a few hundred bytes).
const MAX_ANSWER_BYTES: usize = 1024 * 1024;
/// How long one aggregation may take, validators asked included.
const TIMEOUT: Duration = Duration::from_secs(30);

/// A Data API that aggregates signatures.
#[derive(Debug)]
pub struct DataApiSigner {
    client: reqwest::Client,
    base: String,
    api_key: Option<String>,
}

impl DataApiSigner {
    /// The Data API at `base` (`https://glacier-api.avax.network`, `http://127.0.0.1:8080`),
    /// sending `api_key` as `x-glacier-api-key` if given.
    pub fn new(base: &str, api_key: Option<String>) -> Result<Self, String> {
        let base = base.trim_end_matches('/').to_owned();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(format!("{base} is not an http(s) URL"));
        }
        let client = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Self {
            client,
            base,
            api_key,
        })
    }

    /// The route for `message`'s network: `mainnet` for network 1, `fuji` for any other (a
    /// local firn network answers as Fuji).
    fn url(&self, message: &UnsignedMessage) -> String {
        let network = if message.network_id == 1 {
            "mainnet"
        } else {
            "fuji"
        };
        format!(
            "{}/v1/signatureAggregator/{network}/aggregateSignatures",
            self.base
        )
    }

    async fn aggregate(&self, message: &UnsignedMessage) -> Result<Message, String> {
        let body = SignatureAggregatorRequest {
            message: Some(hex::encode(message.bytes())),
            ..SignatureAggregatorRequest::default()
        };
        let mut request = self.client.post(self.url(message)).json(&body);
        if let Some(key) = &self.api_key {
            request = request.header("x-glacier-api-key", key);
        }
        let mut answer = request.send().await.map_err(|e| e.to_string())?;
        let status = answer.status();
        let mut bytes = Vec::new();
        while let Some(chunk) = answer.chunk().await.map_err(|e| e.to_string())? {
            if bytes.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err(format!("the answer is over {MAX_ANSWER_BYTES} bytes"));
            }
            bytes.extend_from_slice(&chunk);
        }
        if status.as_u16() != 201 {
            let text = String::from_utf8_lossy(&bytes[..bytes.len().min(500)]).into_owned();
            return Err(format!("the Data API answered {status}: {text}"));
        }
        let answer: SignatureAggregationResponse =
            serde_json::from_slice(&bytes).map_err(|e| format!("the Data API's answer: {e}"))?;
        let signed = hex::decode(answer.signed_message.trim_start_matches("0x"))
            .map_err(|e| format!("signedMessage is not hex: {e}"))?;
        let signed = Message::from_bytes(&signed)
            .map_err(|e| format!("signedMessage is not a signed Warp message: {e}"))?;
        if signed.unsigned != *message {
            return Err("the Data API signed another message".to_owned());
        }
        Ok(signed)
    }
}

impl WarpSigner for DataApiSigner {
    fn sign<'a>(&'a self, message: &'a UnsignedMessage) -> BoxFuture<'a, Result<Message, String>> {
        Box::pin(self.aggregate(message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use firn_core::ids::Id;
    use firn_core::warp::BitSetSignature;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A server that answers one request with `status` and `body`; its URL.
    async fn answering(status: u16, body: String) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut request = vec![0u8; 64 * 1024];
            let _ = stream.read(&mut request).await;
            let answer = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(answer.as_bytes()).await;
        });
        url
    }

    fn message(payload: &[u8]) -> UnsignedMessage {
        UnsignedMessage::new(5, Id([1; 32]), payload.to_vec())
    }

    fn signed(unsigned: UnsignedMessage) -> String {
        let signature = BitSetSignature {
            signers: vec![1],
            signature: [0; firn_core::warp::SIGNATURE_LEN],
        };
        let bytes = Message::new(unsigned, signature).bytes();
        format!(r#"{{"signedMessage":"{}"}}"#, hex::encode(bytes))
    }

    #[tokio::test]
    async fn the_asked_message_signed_is_taken_and_anything_else_refused() {
        let asked = message(b"asked");
        let url = answering(201, signed(asked.clone())).await;
        let got = DataApiSigner::new(&url, None).unwrap().sign(&asked).await;
        assert_eq!(got.unwrap().unsigned, asked);

        let url = answering(201, signed(message(b"another"))).await;
        let got = DataApiSigner::new(&url, None).unwrap().sign(&asked).await;
        assert_eq!(got.unwrap_err(), "the Data API signed another message");

        let url = answering(
            503,
            r#"{"message":"signature weight is insufficient"}"#.into(),
        )
        .await;
        let got = DataApiSigner::new(&url, None).unwrap().sign(&asked).await;
        let err = got.unwrap_err();
        assert!(err.contains("503") && err.contains("insufficient"), "{err}");

        let url = answering(201, r#"{"signedMessage":"0x1234"}"#.into()).await;
        let got = DataApiSigner::new(&url, None).unwrap().sign(&asked).await;
        assert!(got.unwrap_err().contains("not a signed Warp message"));

        let huge = format!(r#"{{"signedMessage":"{}"}}"#, "00".repeat(MAX_ANSWER_BYTES));
        let url = answering(201, huge).await;
        let got = DataApiSigner::new(&url, None).unwrap().sign(&asked).await;
        assert!(got.unwrap_err().contains("over 1048576 bytes"));

        assert!(DataApiSigner::new("ftp://x", None).is_err());
    }
}
