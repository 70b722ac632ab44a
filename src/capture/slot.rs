//! The hand-over between the capture thread and the pipeline: a slot of one.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::Frame;

/// What the producer does when the pipeline has not taken the last frame yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotPolicy {
    /// Replace it and count it as dropped (live sources: latency beats completeness).
    DropStale,
    /// Wait until it is taken (offline replay: every decoded frame is
    /// processed), and decode the next only when the pipeline asks for it
    /// ([`Slot::await_turn`]): decoding as fast as possible beside the
    /// pipeline would take its core (`OpenCV`'s decoder runs several
    /// threads), which no camera does, and its time per frame would measure
    /// the decoder.
    Lossless,
}

/// The source's condition, as the pipeline sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceStatus {
    Running,
    /// The device went away; the capture thread keeps trying to reopen it.
    Lost(String),
    /// The input ended normally.
    Ended,
    /// The source failed for good.
    Failed(String),
}

/// What [`Slot::take`] returns.
pub enum Taken {
    Frame(Frame),
    /// Nothing arrived within the timeout (the source may be lost or slow).
    Timeout,
    /// The source has finished and every frame has been taken.
    Finished(SourceStatus),
}

const MAX_SPARES: usize = 2;

struct Inner {
    frame: Option<Frame>,
    spares: Vec<Frame>,
    dropped: u64,
    status: SourceStatus,
    status_changes: u64,
    finished: bool,
    closed: bool,
    /// The consumer waits for a frame (lossless: the producer's turn to decode).
    wanted: bool,
}

/// A slot of one frame between one producer and one consumer.
pub struct Slot {
    policy: SlotPolicy,
    inner: Mutex<Inner>,
    cond: Condvar,
}

impl Slot {
    #[must_use]
    pub fn new(policy: SlotPolicy) -> Self {
        Self {
            policy,
            inner: Mutex::new(Inner {
                frame: None,
                spares: Vec::with_capacity(MAX_SPARES),
                dropped: 0,
                status: SourceStatus::Running,
                status_changes: 0,
                finished: false,
                closed: false,
                wanted: false,
            }),
            cond: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A poisoned lock only means the other side panicked; the data is still consistent.
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The policy this slot was made with.
    #[must_use]
    pub fn policy(&self) -> SlotPolicy {
        self.policy
    }

    /// Producer: offers a frame. Returns `false` when the consumer has closed the slot.
    pub fn put(&self, frame: Frame) -> bool {
        let mut g = self.lock();
        if self.policy == SlotPolicy::Lossless {
            while g.frame.is_some() && !g.closed {
                g = self.cond.wait(g).unwrap_or_else(std::sync::PoisonError::into_inner);
            }
        }
        if g.closed {
            return false;
        }
        g.wanted = false;
        if let Some(stale) = g.frame.replace(frame) {
            g.dropped += 1;
            if g.spares.len() < MAX_SPARES {
                g.spares.push(stale);
            }
        }
        drop(g);
        self.cond.notify_all();
        true
    }

    /// Producer: waits until the next frame should be read: at once for a
    /// live source (stale frames are dropped), and for a lossless one until
    /// the consumer asks for a frame. Returns `false` when the consumer has
    /// closed the slot.
    pub fn await_turn(&self) -> bool {
        let mut g = self.lock();
        if self.policy == SlotPolicy::Lossless {
            while !g.wanted && !g.closed {
                g = self.cond.wait(g).unwrap_or_else(std::sync::PoisonError::into_inner);
            }
        }
        !g.closed
    }

    /// Producer: a recycled frame to decode into, if one is free.
    #[must_use]
    pub fn spare(&self) -> Option<Frame> {
        self.lock().spares.pop()
    }

    /// Producer: reports a change of condition.
    pub fn set_status(&self, status: SourceStatus) {
        let mut g = self.lock();
        if g.status != status {
            g.status = status;
            g.status_changes += 1;
        }
        drop(g);
        self.cond.notify_all();
    }

    /// Producer: no more frames will come.
    pub fn finish(&self, status: SourceStatus) {
        let mut g = self.lock();
        g.status = status;
        g.status_changes += 1;
        g.finished = true;
        drop(g);
        self.cond.notify_all();
    }

    /// Producer: waits up to `timeout` for the consumer to close the slot; `true` if it did.
    pub fn wait_closed(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut g = self.lock();
        while !g.closed {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            g = self.cond.wait_timeout(g, deadline - now).unwrap_or_else(std::sync::PoisonError::into_inner).0;
        }
        true
    }

    /// Whether the consumer has closed the slot.
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// Consumer: takes the newest frame, waiting up to `timeout`.
    pub fn take(&self, timeout: Duration) -> Taken {
        let deadline = Instant::now() + timeout;
        let mut g = self.lock();
        loop {
            if let Some(f) = g.frame.take() {
                drop(g);
                self.cond.notify_all();
                return Taken::Frame(f);
            }
            if g.finished || g.closed {
                return Taken::Finished(g.status.clone());
            }
            if !g.wanted {
                g.wanted = true;
                self.cond.notify_all();
            }
            let now = Instant::now();
            if now >= deadline {
                return Taken::Timeout;
            }
            g = self.cond.wait_timeout(g, deadline - now).unwrap_or_else(std::sync::PoisonError::into_inner).0;
        }
    }

    /// Consumer: gives a processed frame back so its buffers are reused.
    pub fn recycle(&self, frame: Frame) {
        let mut g = self.lock();
        if g.spares.len() < MAX_SPARES {
            g.spares.push(frame);
        }
    }

    /// Consumer: stops the producer.
    pub fn close(&self) {
        self.lock().closed = true;
        self.cond.notify_all();
    }

    /// How many frames were replaced before the pipeline took them.
    #[must_use]
    pub fn dropped(&self) -> u64 {
        self.lock().dropped
    }

    /// The source's condition and a counter that grows with each change.
    #[must_use]
    pub fn status(&self) -> (u64, SourceStatus) {
        let g = self.lock();
        (g.status_changes, g.status.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn frame(i: u64) -> Frame {
        let mut f = Frame::empty();
        f.index = i;
        f
    }

    #[test]
    fn drop_stale_keeps_only_the_newest_and_counts_the_rest() {
        let s = Slot::new(SlotPolicy::DropStale);
        for i in 0..5 {
            assert!(s.put(frame(i)));
        }
        match s.take(Duration::from_millis(10)) {
            Taken::Frame(f) => assert_eq!(f.index, 4),
            _ => panic!("expected a frame"),
        }
        assert_eq!(s.dropped(), 4);
        assert!(matches!(s.take(Duration::from_millis(5)), Taken::Timeout));
        // dropped frames are kept (up to two) for reuse
        assert!(s.spare().is_some());
        assert!(s.spare().is_some());
        assert!(s.spare().is_none());
    }

    #[test]
    fn lossless_blocks_the_producer_until_taken() {
        let s = Arc::new(Slot::new(SlotPolicy::Lossless));
        let p = Arc::clone(&s);
        let producer = std::thread::spawn(move || {
            for i in 0..50 {
                assert!(p.put(frame(i)));
            }
            p.finish(SourceStatus::Ended);
        });
        let mut seen = Vec::new();
        loop {
            match s.take(Duration::from_secs(5)) {
                Taken::Frame(f) => seen.push(f.index),
                Taken::Finished(st) => {
                    assert_eq!(st, SourceStatus::Ended);
                    break;
                }
                Taken::Timeout => panic!("producer stalled"),
            }
        }
        producer.join().expect("producer thread");
        assert_eq!(seen, (0..50).collect::<Vec<_>>());
        assert_eq!(s.dropped(), 0);
    }

    /// The producer of a lossless slot reads a frame only when the consumer
    /// asks for one: it never decodes beside the pipeline's work.
    #[test]
    fn a_lossless_producer_reads_only_when_a_frame_is_asked_for() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let s = Arc::new(Slot::new(SlotPolicy::Lossless));
        let reads = Arc::new(AtomicU64::new(0));
        let (p, r) = (Arc::clone(&s), Arc::clone(&reads));
        let producer = std::thread::spawn(move || {
            let mut i = 0;
            while p.await_turn() {
                r.fetch_add(1, Ordering::SeqCst);
                if !p.put(frame(i)) {
                    break;
                }
                i += 1;
            }
        });
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(reads.load(Ordering::SeqCst), 0, "nothing is read before the first take");
        for i in 0..3 {
            match s.take(Duration::from_secs(5)) {
                Taken::Frame(f) => assert_eq!(f.index, i),
                _ => panic!("expected frame {i}"),
            }
            // The pipeline works on frame i: the producer waits meanwhile.
            std::thread::sleep(Duration::from_millis(30));
            assert_eq!(reads.load(Ordering::SeqCst), i + 1, "read ahead during frame {i}");
        }
        s.close();
        producer.join().expect("producer thread");
        assert_eq!(s.dropped(), 0);
    }

    #[test]
    fn a_drop_stale_producer_reads_at_once() {
        let s = Slot::new(SlotPolicy::DropStale);
        assert!(s.await_turn());
        s.close();
        assert!(!s.await_turn());
    }

    #[test]
    fn close_releases_a_waiting_producer() {
        let s = Arc::new(Slot::new(SlotPolicy::Lossless));
        assert!(s.put(frame(0)));
        let p = Arc::clone(&s);
        let producer = std::thread::spawn(move || p.put(frame(1)));
        std::thread::sleep(Duration::from_millis(20));
        s.close();
        assert!(!producer.join().expect("producer thread"));
    }

    #[test]
    fn status_changes_are_counted() {
        let s = Slot::new(SlotPolicy::DropStale);
        let (n0, st0) = s.status();
        assert_eq!(st0, SourceStatus::Running);
        s.set_status(SourceStatus::Lost("unplugged".into()));
        s.set_status(SourceStatus::Lost("unplugged".into()));
        let (n1, st1) = s.status();
        assert_eq!(n1, n0 + 1);
        assert_eq!(st1, SourceStatus::Lost("unplugged".into()));
    }
}
