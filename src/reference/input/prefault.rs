//! The events' pages, mapped by the reading thread in its idle time, ahead of the applying
//! thread. A fresh process meets every page of its state for the first time, and each first
//! touch stops the thread that makes it for a page fault: at 100k events about half of a run's
//! faults are the events', some 1,300, all on the applying thread. Asked with
//! `MADV_POPULATE_WRITE`, the kernel maps the same pages in advance on the reading thread.
//! Only in its idle time, though, while it waits for room to send a batch: a run is held back
//! by its reading thread while the state is small and by its applying thread once it is large,
//! so work moved to the reading thread for good only moves the hold-up (measured: 8 to 10%
//! slower at 100k events). The events must stay in one place for this, so the dispatcher is
//! given room for as many events as the input could hold (address space only: pages are
//! mapped only just ahead of the events). Mapping ahead changes no byte of memory, so a guess
//! gone wrong (room that ran out and moved) costs nothing but the hint; any error ends the
//! hints. Under a limit on address space or data, or strict overcommit, no room is made: it
//! would count against what the run may have (see `room_allowed`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The fewest bytes an `enqueue` takes: `["enqueue",0,"","",[0]]`. An input of `n` bytes holds
/// at most `n / SHORTEST_ENQUEUE` events.
const SHORTEST_ENQUEUE: u64 = 23;
/// Room for at most this many events is asked for at the start (about 940 MB of address space).
const MOST_EVENTS: u64 = 1 << 24;
/// How far ahead of the events applied pages are mapped, in events: the reading thread is idle
/// again long before the applying one has made that many (some 5,000 operations, with the
/// brief's mix). It bounds the memory mapped before its time, about 100 KB.
const LEAD: usize = 2048;
/// Pages are mapped this many bytes at a time: a system call maps many, and the reading
/// thread is back to its channel within some tens of microseconds.
const STEP: usize = 64 << 10;
const PAGE: usize = 4096;

/// The room to make for the events of an input of `bytes` bytes: none where address space or
/// committed memory is limited (see [`room_allowed`]).
pub(super) fn events_for(bytes: u64) -> usize {
    if !limits_allow() {
        return 0;
    }
    room_for(bytes)
}

/// [`room_allowed`] for this process.
fn limits_allow() -> bool {
    // The soft limit on a resource, `None` when unlimited; one that cannot be read counts as a
    // limit.
    let limit = |resource| {
        let mut l = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes one `rlimit` into `l`, which is one.
        let read = unsafe { libc::getrlimit(resource, &mut l) } == 0;
        (!read || l.rlim_cur != libc::RLIM_INFINITY).then_some(l.rlim_cur)
    };
    // The kernel's overcommit mode, "2" (the careful answer) when unknown.
    let overcommit =
        std::fs::read_to_string("/proc/sys/vm/overcommit_memory").unwrap_or_else(|_| "2".into());
    room_allowed(
        limit(libc::RLIMIT_AS),
        limit(libc::RLIMIT_DATA),
        &overcommit,
    )
}

fn room_for(bytes: u64) -> usize {
    usize::try_from((bytes / SHORTEST_ENQUEUE).min(MOST_EVENTS)).unwrap_or(0)
}

/// Whether room may be reserved ahead, given the process's limits on address space and on data
/// (`None` for unlimited) and the kernel's overcommit mode. Room counts against both limits,
/// and under strict overcommit (mode 2) against the memory the whole machine may commit: there
/// a reservation that fits could leave too little for the state it was made for (measured:
/// under `ulimit -v` of 210 to 240 MB a 1M run failed to allocate its id table, where without
/// the room it ran in 200 MB). Without limits it costs only address space.
fn room_allowed(address_space: Option<u64>, data: Option<u64>, overcommit: &str) -> bool {
    address_space.is_none() && data.is_none() && overcommit.trim() != "2"
}

/// The reading thread's side: where the events' room is, and how far it is mapped.
pub(super) struct Prefault {
    /// How many events the applying thread holds, as it last said.
    applied: Arc<AtomicUsize>,
    start: usize,
    end: usize,
    per_event: usize,
    /// Mapped up to here (an address, at a page's start).
    mapped: usize,
}

impl Prefault {
    /// For the room `(start, end, per_event)` of [`crate::dispatcher::Dispatcher::event_room`],
    /// whose events the applying thread counts in `applied`.
    pub fn new(room: (usize, usize, usize), applied: Arc<AtomicUsize>) -> Option<Self> {
        let (start, end, per_event) = room;
        (cfg!(target_os = "linux") && end > start).then_some(Prefault {
            applied,
            start,
            end,
            per_event,
            mapped: start & !(PAGE - 1),
        })
    }

    /// Maps the next `STEP` bytes of the events' room, if they are within `LEAD` events of
    /// those applied. `Some(true)` when it mapped some, `Some(false)` when there was nothing to
    /// map yet, `None` once the kernel refused (after which there is no point asking again).
    pub fn step(&mut self) -> Option<bool> {
        let events = self.applied.load(Ordering::Relaxed).saturating_add(LEAD);
        let want = self
            .start
            .saturating_add(events.saturating_mul(self.per_event))
            .min(self.end);
        if want <= self.mapped {
            return Some(false);
        }
        let upto = page_up(want)
            .min(self.mapped.saturating_add(STEP))
            .min(page_up(self.end));
        let done = populate(self.mapped, upto - self.mapped);
        self.mapped = upto;
        done.then_some(true)
    }
}

fn page_up(at: usize) -> usize {
    at.saturating_add(PAGE - 1) & !(PAGE - 1)
}

#[cfg(target_os = "linux")]
fn populate(start: usize, len: usize) -> bool {
    // Linux 5.14 and later; older kernels say EINVAL, and the hints stop.
    const MADV_POPULATE_WRITE: libc::c_int = 23;
    // SAFETY: populating maps pages as writing to them would, but writes nothing, so no byte
    // any thread can read changes. The range is page-aligned; if part of it is not mapped
    // (room that moved), the call fails with ENOMEM and changes nothing.
    unsafe { libc::madvise(start as *mut libc::c_void, len, MADV_POPULATE_WRITE) == 0 }
}

#[cfg(not(target_os = "linux"))]
fn populate(_: usize, _: usize) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether every page of `start..end` is in memory.
    fn resident(start: usize, end: usize) -> bool {
        let pages = (page_up(end) - start) / PAGE;
        let mut flags = vec![0u8; pages];
        // SAFETY: mincore writes one byte per page of the range into `flags`, which has them.
        let r =
            unsafe { libc::mincore(start as *mut libc::c_void, end - start, flags.as_mut_ptr()) };
        r == 0 && flags.iter().all(|f| f & 1 == 1)
    }

    #[test]
    fn maps_a_step_at_a_time_up_to_the_lead_and_changes_no_byte() {
        let mut events: Vec<u64> = Vec::with_capacity(1 << 20);
        events.extend(0..1000);
        let start = events.as_ptr() as usize;
        let room = (start, start + events.capacity() * 8, 8);
        let applied = Arc::new(AtomicUsize::new(1000));
        let mut p = Prefault::new(room, Arc::clone(&applied)).expect("a room");
        let want = page_up(start + (1000 + LEAD) * 8);
        let mut steps = 0;
        while p.step() == Some(true) {
            steps += 1;
            assert!(p.mapped - (start & !(PAGE - 1)) <= steps * STEP);
        }
        assert_eq!(p.mapped, want, "mapped up to the lead, no further");
        assert_eq!(steps, (want - (start & !(PAGE - 1))).div_ceil(STEP));
        assert!(resident(start & !(PAGE - 1), want));
        assert_eq!(p.step(), Some(false), "nothing more until more is applied");
        applied.store(1 << 20, Ordering::Relaxed);
        while p.step() == Some(true) {}
        assert_eq!(p.mapped, page_up(room.1), "never past the room");
        assert!(events.iter().copied().eq(0..1000));
    }

    #[test]
    fn a_room_that_is_not_mapped_ends_the_hints() {
        // The first page, below any `mmap_min_addr`, is never mapped.
        let room = (0, PAGE, 8);
        let mut p = Prefault::new(room, Arc::new(AtomicUsize::new(0))).expect("a room");
        assert_eq!(p.step(), None);
        assert!(Prefault::new((PAGE, PAGE, 8), Arc::new(AtomicUsize::new(0))).is_none());
    }

    #[test]
    fn room_is_made_for_as_many_events_as_the_input_can_hold_within_a_bound() {
        assert_eq!(room_for(0), 0);
        assert_eq!(room_for(22), 0);
        assert_eq!(room_for(23), 1);
        assert_eq!(room_for(8_162_422), 354_887);
        assert_eq!(room_for(u64::MAX), 1 << 24);
    }

    #[test]
    fn no_room_is_made_under_any_limit_or_strict_overcommit() {
        assert!(room_allowed(None, None, "0\n"));
        assert!(room_allowed(None, None, "1\n"));
        assert!(!room_allowed(None, None, "2\n"));
        assert!(!room_allowed(Some(200 << 20), None, "0\n"));
        assert!(!room_allowed(None, Some(1 << 40), "0\n"));
        // This process's own.
        let here = limits_allow();
        assert_eq!(events_for(23 * 1000), if here { 1000 } else { 0 });
    }
}
