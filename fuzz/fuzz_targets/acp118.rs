//! Decodes arbitrary bytes as ACP-118 protobuf messages. Protobuf is not canonical, so the
//! check is that whatever decodes survives a re-encode and re-decode unchanged.
#![no_main]

use firn_core::warp::acp118::{L1ValidatorRegistrationJustification, SignatureRequest, SignatureResponse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(req) = SignatureRequest::from_app_request_bytes(data) {
        assert_eq!(SignatureRequest::from_app_request_bytes(&req.app_request_bytes()).ok(), Some(req));
    }
    if let Ok(resp) = SignatureResponse::from_bytes(data) {
        assert_eq!(SignatureResponse::from_bytes(&resp.bytes()).ok(), Some(resp));
    }
    if let Ok(j) = L1ValidatorRegistrationJustification::from_bytes(data) {
        assert_eq!(L1ValidatorRegistrationJustification::from_bytes(&j.bytes()).ok(), Some(j));
    }
});
