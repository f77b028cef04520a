//! Requests to URLs that someone else chose (NFT metadata URIs from chain data, webhook
//! targets from API clients): they may point at loopback, a cloud metadata service or the
//! operator's LAN.
//!
//! [`guarded_client`] builds a reqwest client that connects only to public addresses unless
//! told otherwise: the check is on the resolved IP of every connection (a custom resolver, so
//! a name that resolves to a private address is refused even after a redirect) and on IP
//! literals at every redirect hop ([`allowed_url`], which callers also apply to the first
//! URL). It ignores proxy settings from the environment (they would route around the checks).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::redirect::Policy;

/// Whether `ip` is a public unicast address: not loopback, private (RFC 1918, unique-local),
/// link-local, carrier-grade NAT, multicast, broadcast, unspecified, documentation or
/// benchmarking space; IPv4 inside IPv6 (mapped, NAT64) is judged as IPv4.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public_v4(v4);
            }
            let s = v6.segments();
            // NAT64 (64:ff9b::/96) carries an IPv4 address in its last 32 bits.
            if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                let [a, b, c, d] = [s[6] >> 8, s[6] & 0xff, s[7] >> 8, s[7] & 0xff];
                return is_public_v4(Ipv4Addr::new(a as u8, b as u8, c as u8, d as u8));
            }
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
                || (s[0] & 0xffc0) == 0xfe80 // link local fe80::/10
                || (s[0] & 0xffc0) == 0xfec0 // site local fec0::/10 (deprecated)
                || (s[0] == 0x2001 && s[1] == 0x0db8)) // documentation
        }
    }
}

fn is_public_v4(v4: Ipv4Addr) -> bool {
    let [a, b, c, _] = v4.octets();
    !(v4.is_private()
        || v4.is_loopback()
        || v4.is_link_local()
        || v4.is_unspecified()
        || v4.is_broadcast()
        || v4.is_multicast()
        || v4.is_documentation()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // carrier-grade NAT
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (18..20).contains(&b)) // benchmarking
        || a >= 240) // reserved
}

/// Resolves names with the system resolver, keeping only the addresses allowed.
#[derive(Debug)]
struct GuardedResolver {
    allow_private: bool,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_private = self.allow_private;
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let allowed: Vec<SocketAddr> = found
                .into_iter()
                .filter(|a| allow_private || is_public(a.ip()))
                .collect();
            if allowed.is_empty() {
                return Err(format!("{host} resolves to no public address").into());
            }
            let addrs: Addrs = Box::new(allowed.into_iter());
            Ok(addrs)
        })
    }
}

/// Whether `url` may be asked for at all: http(s), and an IP literal host only if allowed.
pub fn allowed_url(url: &reqwest::Url, allow_private: bool) -> bool {
    if !matches!(url.scheme(), "http" | "https") {
        return false;
    }
    let Some(host) = url.host_str() else {
        return false;
    };
    // An IPv6 literal comes bracketed; a name is checked when it resolves.
    match host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
    {
        Ok(ip) => allow_private || is_public(ip),
        Err(_) => true,
    }
}

/// A client builder whose connections reach public addresses only (any address if
/// `allow_private`), with `timeout` per request and connection, following at most
/// `max_redirects` redirects to allowed http(s) URLs.
pub fn guarded_client(
    timeout: Duration,
    allow_private: bool,
    max_redirects: usize,
) -> reqwest::ClientBuilder {
    let redirects = Policy::custom(move |attempt| {
        if attempt.previous().len() > max_redirects {
            attempt.error("too many redirects")
        } else if !allowed_url(attempt.url(), allow_private) {
            attempt.error("redirect to a URL that is not allowed")
        } else {
            attempt.follow()
        }
    });
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .redirect(redirects)
        .no_proxy()
        .dns_resolver(Arc::new(GuardedResolver { allow_private }))
        .user_agent(concat!("firn/", env!("CARGO_PKG_VERSION")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_unicast_addresses_are_public() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "192.0.2.1",
            "198.18.0.1",
            "240.0.0.1",
            "::1",
            "::",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "ff02::1",
            "2001:db8::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::7f00:1",
        ] {
            assert!(!is_public(private.parse().unwrap()), "{private}");
        }
        for public in [
            "1.1.1.1",
            "8.8.8.8",
            "2606:4700:4700::1111",
            "::ffff:1.1.1.1",
        ] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }

    #[test]
    fn urls_need_http_and_a_public_literal() {
        let ok = |u: &str, private| allowed_url(&reqwest::Url::parse(u).unwrap(), private);
        assert!(ok("https://example.com/x", false));
        assert!(ok("http://1.1.1.1/x", false));
        assert!(!ok("http://127.0.0.1:8080/x", false));
        assert!(!ok("http://[::1]/x", false));
        assert!(!ok("http://169.254.169.254/latest/meta-data", false));
        assert!(!ok("file:///etc/passwd", false));
        assert!(!ok("ftp://example.com/x", false));
        assert!(ok("http://127.0.0.1:8080/x", true));
    }
}
