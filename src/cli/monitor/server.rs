//! `/metrics` over HTTP: hyper's HTTP/1 server on a one-thread tokio runtime, on its own
//! thread (which runs where the monitor's main thread may: the housekeeping CPUs). Each
//! connection is a task, not a thread; a client that does not send its request head within
//! [`HEADER_TIMEOUT`] is disconnected (hyper's header read timeout), a connection is closed after
//! [`CONNECTION_TIMEOUT`] whatever it does, and past [`MAX_CONNECTIONS`] open at once a new
//! one is closed at once: a slow or malformed client costs a task and a socket for a bounded
//! time, and the server keeps serving the others. Malformed requests get hyper's 400.
//!
//! The exposition is OpenMetrics text by default; a client whose `Accept` asks for the
//! Prometheus text format (`text/plain`) and not OpenMetrics gets that.

use std::convert::Infallible;
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};

use super::metrics::Metrics;

/// A client must send its request head within this.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);
/// A connection is closed this long after it was accepted, whatever it is doing.
pub const CONNECTION_TIMEOUT: Duration = Duration::from_secs(60);
/// Connections served at once; more are closed as they come.
pub const MAX_CONNECTIONS: usize = 64;
/// How often the accept loop looks at the stop flag.
const STOP_CHECK: Duration = Duration::from_millis(100);

/// OpenMetrics' content type.
pub const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
/// The Prometheus text format's content type.
pub const PROMETHEUS_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Serves `metrics` on `listener` until `stop` is set. Errors are one line.
pub fn serve(
    listener: TcpListener,
    metrics: Arc<Metrics>,
    stop: &AtomicBool,
) -> Result<(), String> {
    // Signals go to the main thread, which ends the monitor (as in the measuring threads).
    let _ = rtlat_linux::signals::block_run_signals();
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("--listen: {e}"))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| format!("cannot start the HTTP server: {e}"))?;
    let open = Arc::new(AtomicUsize::new(0));
    let result = runtime.block_on(async {
        let listener =
            tokio::net::TcpListener::from_std(listener).map_err(|e| format!("--listen: {e}"))?;
        while !stop.load(Ordering::Acquire) {
            let Ok(accepted) = tokio::time::timeout(STOP_CHECK, listener.accept()).await else {
                continue;
            };
            let Ok((stream, _)) = accepted else {
                // Out of descriptors, a connection reset before it was accepted: the next
                // one may do.
                tokio::time::sleep(STOP_CHECK).await;
                continue;
            };
            if open.load(Ordering::Acquire) >= MAX_CONNECTIONS {
                drop(stream);
                continue;
            }
            let _ = stream.set_nodelay(true);
            open.fetch_add(1, Ordering::AcqRel);
            let open = Arc::clone(&open);
            let metrics = Arc::clone(&metrics);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let metrics = Arc::clone(&metrics);
                    async move { Ok::<_, Infallible>(respond(&request, &metrics)) }
                });
                let connection = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(HEADER_TIMEOUT)
                    .serve_connection(TokioIo::new(stream), service);
                let _ = tokio::time::timeout(CONNECTION_TIMEOUT, connection).await;
                open.fetch_sub(1, Ordering::AcqRel);
            });
        }
        Ok(())
    });
    // Connections still open are dropped with the runtime.
    drop(runtime);
    result
}

/// The response to one request.
fn respond(request: &Request<Incoming>, metrics: &Metrics) -> Response<Full<Bytes>> {
    let text = |status: StatusCode, body: &'static str| {
        let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
        *response.status_mut() = status;
        response.headers_mut().insert(
            CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        response
    };
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let mut response = text(
            StatusCode::METHOD_NOT_ALLOWED,
            "only GET and HEAD are served\n",
        );
        response
            .headers_mut()
            .insert("allow", HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    match request.uri().path() {
        "/metrics" => {
            let classic = wants_prometheus_text(request.headers().get(ACCEPT));
            let (body, content_type) = if classic {
                (metrics.prometheus_text(), PROMETHEUS_TEXT)
            } else {
                (metrics.openmetrics(), OPENMETRICS)
            };
            let mut response = Response::new(Full::new(Bytes::from(body)));
            response
                .headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
            response
        }
        "/" => text(
            StatusCode::OK,
            "rtlat monitor: the metrics are at /metrics\n",
        ),
        _ => text(
            StatusCode::NOT_FOUND,
            "not found: the metrics are at /metrics\n",
        ),
    }
}

/// True when `accept` asks for the Prometheus text format and not for OpenMetrics.
pub fn wants_prometheus_text(accept: Option<&HeaderValue>) -> bool {
    let Some(accept) = accept.and_then(|a| a.to_str().ok()) else {
        return false;
    };
    let types: Vec<&str> = accept
        .split(',')
        .map(|t| t.split(';').next().unwrap_or("").trim())
        .collect();
    !types.contains(&"application/openmetrics-text") && types.contains(&"text/plain")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_headers() {
        let h = |s: &'static str| Some(HeaderValue::from_static(s));
        assert!(!wants_prometheus_text(None));
        assert!(!wants_prometheus_text(h("*/*").as_ref()));
        assert!(wants_prometheus_text(
            h("text/plain;version=0.0.4").as_ref()
        ));
        assert!(!wants_prometheus_text(
            h("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1").as_ref()
        ));
    }
}
