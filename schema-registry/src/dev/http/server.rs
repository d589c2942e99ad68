//! The listening side: an accept thread, a thread per connection (bounded, idle ones evicted
//! first), the worker turns and the body budget shared by all connections.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{serve_connection, Admission, Handler, HttpLimits, Response};

/// Stack of a connection thread: parsing and handling stay shallow (schema parsers bound
/// their nesting), so this is room to spare; untouched stack costs no memory.
const CONNECTION_STACK_BYTES: usize = 8 * 1024 * 1024;

/// Locks a mutex, taking over a poisoned one (the data it guards stays consistent: every
/// critical section here is a few plain field updates).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A counting semaphore with a bounded wait.
struct Semaphore {
    available: Mutex<usize>,
    changed: Condvar,
}

impl Semaphore {
    fn new(n: usize) -> Self {
        Semaphore {
            available: Mutex::new(n),
            changed: Condvar::new(),
        }
    }

    /// Takes `n` units, waiting at most `timeout`; `false` when they did not free up.
    fn acquire(&self, n: usize, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut available = lock(&self.available);
        while *available < n {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            available = self
                .changed
                .wait_timeout(available, left)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
        *available -= n;
        true
    }

    fn release(&self, n: usize) {
        *lock(&self.available) += n;
        self.changed.notify_all();
    }
}

/// One open connection as the accept thread sees it.
struct Tracked {
    stream: TcpStream,
    idle_since: Option<Instant>,
    thread: Option<JoinHandle<()>>,
}

/// State shared by the accept thread and the connection threads.
struct Shared {
    handler: Arc<dyn Handler>,
    limits: HttpLimits,
    connections: Mutex<HashMap<u64, Tracked>>,
    workers: Semaphore,
    body_budget: Semaphore,
    stop: AtomicBool,
}

/// The admission of one connection: its id and its current body reservation.
struct ConnectionAdmission<'a> {
    shared: &'a Shared,
    id: u64,
    reserved: std::cell::Cell<usize>,
}

impl Admission for ConnectionAdmission<'_> {
    fn reserve_body(&self, bytes: usize) -> Result<(), Response> {
        let bytes = bytes.min(self.shared.limits.body_budget_bytes);
        if bytes == 0 {
            return Ok(());
        }
        if self
            .shared
            .body_budget
            .acquire(bytes, self.shared.limits.queue_timeout)
        {
            self.reserved.set(bytes);
            Ok(())
        } else {
            Err(busy(
                "request bodies in progress fill the server's memory budget",
            ))
        }
    }

    fn release_body(&self) {
        let bytes = self.reserved.replace(0);
        if bytes > 0 {
            self.shared.body_budget.release(bytes);
        }
    }

    fn with_worker(&self, f: &mut dyn FnMut() -> Response) -> Response {
        if !self
            .shared
            .workers
            .acquire(1, self.shared.limits.queue_timeout)
        {
            return busy("all request workers stayed busy");
        }
        let answer = f();
        self.shared.workers.release(1);
        answer
    }

    fn set_idle(&self, idle: bool) {
        if let Some(t) = lock(&self.shared.connections).get_mut(&self.id) {
            t.idle_since = idle.then(Instant::now);
        }
    }
}

fn busy(why: &str) -> Response {
    Response::error(503, 503, format!("Service Unavailable: {why}; retry later"))
}

/// A running server: stops on [`HttpServer::stop`] or drop.
pub(crate) struct HttpServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

impl HttpServer {
    /// Binds `addr` and starts accepting.
    pub(crate) fn start(
        addr: SocketAddr,
        handler: Arc<dyn Handler>,
        limits: HttpLimits,
    ) -> io::Result<Self> {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            handler,
            workers: Semaphore::new(limits.workers.max(1)),
            body_budget: Semaphore::new(limits.body_budget_bytes),
            limits,
            connections: Mutex::new(HashMap::new()),
            stop: AtomicBool::new(false),
        });
        let state = Arc::clone(&shared);
        let acceptor = std::thread::Builder::new()
            .name("karrow-registry-accept".into())
            .spawn(move || accept_loop(&listener, &state))?;
        Ok(HttpServer {
            addr,
            shared,
            acceptor: Some(acceptor),
        })
    }

    /// The bound address.
    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Open connections right now (for tests).
    pub(crate) fn connection_count(&self) -> usize {
        lock(&self.shared.connections).len()
    }

    /// Waits until the server stops (another thread calls [`HttpServer::stop`]).
    pub(crate) fn join(&mut self) {
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }

    /// Stops accepting, closes every connection and waits for their threads.
    pub(crate) fn stop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accept thread with a connection of our own.
        let wake = match self.addr.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => {
                SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), self.addr.port())
            }
            IpAddr::V6(ip) if ip.is_unspecified() => {
                SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), self.addr.port())
            }
            _ => self.addr,
        };
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
        self.join();
        let open: Vec<Tracked> = lock(&self.shared.connections)
            .drain()
            .map(|(_, t)| t)
            .collect();
        for t in &open {
            let _ = t.stream.shutdown(Shutdown::Both);
        }
        for t in open {
            if let Some(thread) = t.thread {
                let _ = thread.join();
            }
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if !self.shared.stop.load(Ordering::SeqCst) {
            self.stop();
        }
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    let ids = AtomicU64::new(0);
    for stream in listener.incoming() {
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else {
            // Out of descriptors and the like: back off instead of spinning.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        let _ = stream.set_nodelay(true);
        if !make_room(shared) {
            turn_away(stream, &shared.limits);
            continue;
        }
        let id = ids.fetch_add(1, Ordering::Relaxed);
        let Ok(tracked_stream) = stream.try_clone() else {
            continue;
        };
        let mut connections = lock(&shared.connections);
        connections.insert(
            id,
            Tracked {
                stream: tracked_stream,
                idle_since: Some(Instant::now()),
                thread: None,
            },
        );
        let state = Arc::clone(shared);
        let spawned = std::thread::Builder::new()
            .name(format!("karrow-registry-conn-{id}"))
            .stack_size(CONNECTION_STACK_BYTES)
            .spawn(move || run_connection(stream, &state, id));
        match spawned {
            Ok(thread) => {
                if let Some(t) = connections.get_mut(&id) {
                    t.thread = Some(thread);
                }
            }
            Err(_) => {
                connections.remove(&id);
            }
        }
    }
}

/// Makes room for one more connection: true when there is room (after closing the
/// longest-idle connection if the table is full), false when every connection is busy.
fn make_room(shared: &Shared) -> bool {
    let mut connections = lock(&shared.connections);
    connections.retain(|_, t| !t.thread.as_ref().is_some_and(|h| h.is_finished()));
    if connections.len() < shared.limits.max_connections.max(1) {
        return true;
    }
    let oldest_idle = connections
        .iter()
        .filter_map(|(id, t)| t.idle_since.map(|since| (since, *id)))
        .min();
    match oldest_idle {
        Some((_, id)) => {
            if let Some(t) = connections.remove(&id) {
                // Its thread sees end-of-stream and ends.
                let _ = t.stream.shutdown(Shutdown::Both);
            }
            true
        }
        None => false,
    }
}

/// Answers 503 on a connection there is no room for, without a thread of its own.
fn turn_away(mut stream: TcpStream, limits: &HttpLimits) {
    let _ = stream.set_write_timeout(Some(Duration::from_millis(200)));
    let answer = busy(&format!(
        "{} connections are open and busy",
        limits.max_connections
    ));
    let _ = answer.write_to(&mut stream, false, false);
    let _ = stream.shutdown(Shutdown::Write);
}

fn run_connection(mut stream: TcpStream, shared: &Shared, id: u64) {
    let admission = ConnectionAdmission {
        shared,
        id,
        reserved: std::cell::Cell::new(0),
    };
    // The protocol code does not panic on input, but a bug there must end only this
    // connection and still return its budget.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        serve_connection(
            &mut stream,
            shared.handler.as_ref(),
            &shared.limits,
            &admission,
        )
    }));
    admission.release_body();
    let _ = stream.shutdown(Shutdown::Both);
    lock(&shared.connections).remove(&id);
}
