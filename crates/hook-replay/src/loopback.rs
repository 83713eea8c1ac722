//! The accept loop of the tests' loopback servers (the rules API stand-in, the model server): a
//! listener on a free 127.0.0.1 port, each connection served on a thread of its own so a hanging
//! answer does not block the next request, and a stop on drop that wakes the loop and joins it.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// A running accept loop; stops when dropped.
pub struct Acceptor {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Acceptor {
    /// Binds 127.0.0.1 on a free port and hands each connection to `serve`, with the stop flag
    /// (set once the acceptor is dropped) so a long answer can end early. `name` names the
    /// threads.
    pub fn start(
        name: &str,
        serve: impl Fn(TcpStream, &AtomicBool) + Send + Sync + 'static,
    ) -> std::io::Result<Acceptor> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let serve = Arc::new(serve);
        let thread = {
            let stop = Arc::clone(&stop);
            let conn_name = format!("{name}-conn");
            std::thread::Builder::new()
                .name(format!("{name}-accept"))
                .spawn(move || {
                    for stream in listener.incoming() {
                        if stop.load(Ordering::SeqCst) {
                            return;
                        }
                        let Ok(stream) = stream else { continue };
                        let (serve, stop) = (Arc::clone(&serve), Arc::clone(&stop));
                        // Detached: each ends at EOF, on its own timeout, or once it sees the
                        // stop flag.
                        let _ = std::thread::Builder::new()
                            .name(conn_name.clone())
                            .spawn(move || serve(stream, &stop));
                    }
                })?
        };
        Ok(Acceptor {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Acceptor {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the blocking accept so the loop sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn each_connection_is_served_and_drop_stops_the_loop() {
        let acceptor = Acceptor::start("echo", |mut s, _| {
            let mut b = [0u8; 5];
            if s.read_exact(&mut b).is_ok() {
                let _ = s.write_all(&b);
            }
        })
        .unwrap();
        let addr = acceptor.addr();
        for word in [b"hello", b"again"] {
            let mut c = TcpStream::connect(addr).unwrap();
            c.write_all(word).unwrap();
            let mut back = [0u8; 5];
            c.read_exact(&mut back).unwrap();
            assert_eq!(&back, word);
        }
        drop(acceptor);
        assert!(TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_err());
    }
}
