//! Typed-API tests of the spec's rules; the JSON contract is tested in `tests/`.

use super::*;

fn outcomes(list: &[i64]) -> Outcomes {
    Outcomes::new(list.iter().copied()).expect("valid outcomes in test")
}

fn records(d: &mut Dispatcher, ts: Ts) -> Vec<String> {
    let attempts = d.process(ts);
    attempts.iter().map(|a| d.record(a).to_string()).collect()
}

fn shop() -> Dispatcher {
    let mut d = Dispatcher::new();
    d.register("shop", "https://shop.example/hooks")
        .expect("fresh endpoint");
    d
}

fn status(d: &Dispatcher, id: &str) -> (State, u32, Option<Ts>) {
    let s = d.status(id).expect("known event");
    (s.state, s.attempts, s.next_attempt_at)
}

#[test]
fn retry_schedule_runs_to_the_sixth_attempt_and_dies() {
    let mut d = shop();
    d.enqueue(0, "shop", "e", outcomes(&[500]))
        .expect("enqueue");
    let mut got = Vec::new();
    for ts in [0, 30, 90, 210, 450, 750, 10_000] {
        got.extend(records(&mut d, ts));
    }
    assert_eq!(
        got,
        vec![
            "e #1 500 retry at 30",
            "e #2 500 retry at 90",
            "e #3 500 retry at 210",
            "e #4 500 retry at 450",
            "e #5 500 retry at 750",
            "e #6 500 dead",
        ]
    );
    assert_eq!(status(&d, "e"), (State::Dead, 6, None));
    assert_eq!(d.dead_letters().collect::<Vec<_>>(), vec!["e"]);
}

#[test]
fn waits_count_from_the_process_call() {
    let mut d = shop();
    d.enqueue(0, "shop", "e", outcomes(&[503, 503, 200]))
        .expect("enqueue");
    assert_eq!(records(&mut d, 100), vec!["e #1 503 retry at 130"]);
    assert_eq!(records(&mut d, 129), Vec::<String>::new());
    assert_eq!(records(&mut d, 500), vec!["e #2 503 retry at 560"]);
    assert_eq!(status(&d, "e"), (State::Pending, 2, Some(560)));
}

#[test]
fn permanent_failure_dies_at_once_and_delivered_is_final() {
    let mut d = shop();
    d.enqueue(0, "shop", "a", outcomes(&[410]))
        .expect("enqueue");
    d.enqueue(0, "shop", "b", outcomes(&[204]))
        .expect("enqueue");
    assert_eq!(
        records(&mut d, 0),
        vec!["a #1 410 dead", "b #1 204 delivered"]
    );
    assert_eq!(status(&d, "b"), (State::Delivered, 1, None));
    assert_eq!(records(&mut d, 10_000), Vec::<String>::new());
}

#[test]
fn head_blocks_its_endpoint_only_and_unblocks_in_the_same_call() {
    let mut d = shop();
    d.register("other", "u").expect("register");
    d.enqueue(0, "shop", "a", outcomes(&[500, 200]))
        .expect("enqueue");
    d.enqueue(5, "shop", "b", outcomes(&[200]))
        .expect("enqueue");
    d.enqueue(20, "other", "c", outcomes(&[200]))
        .expect("enqueue");
    assert_eq!(records(&mut d, 10), vec!["a #1 500 retry at 40"]);
    assert_eq!(status(&d, "b"), (State::Pending, 0, Some(5)));
    // Heads at 40: c (due 20) before a (due 40). a's delivery unblocks b, due since 5.
    assert_eq!(
        records(&mut d, 40),
        vec![
            "c #1 200 delivered",
            "a #2 200 delivered",
            "b #1 200 delivered"
        ]
    );
}

#[test]
fn unblocked_event_overtakes_a_later_head_of_another_endpoint() {
    let mut d = shop();
    d.register("other", "u").expect("register");
    d.enqueue(0, "shop", "a", outcomes(&[200]))
        .expect("enqueue");
    d.enqueue(0, "shop", "b", outcomes(&[200]))
        .expect("enqueue");
    d.enqueue(3, "other", "c", outcomes(&[200]))
        .expect("enqueue");
    assert_eq!(
        records(&mut d, 3),
        vec![
            "a #1 200 delivered",
            "b #1 200 delivered",
            "c #1 200 delivered"
        ]
    );
}

#[test]
fn disable_holds_and_enable_moves_due_times_both_ways() {
    let mut d = shop();
    d.enqueue(0, "shop", "a", outcomes(&[500, 500, 200]))
        .expect("enqueue");
    assert_eq!(records(&mut d, 0), vec!["a #1 500 retry at 30"]);
    d.disable("shop").expect("disable");
    assert_eq!(d.disable("shop"), Err(Error::AlreadyDisabled));
    d.enqueue(1, "shop", "b", outcomes(&[200]))
        .expect("enqueue while disabled");
    assert_eq!(status(&d, "a"), (State::Held, 1, None));
    assert_eq!(status(&d, "b"), (State::Held, 0, None));
    assert_eq!(records(&mut d, 100), Vec::<String>::new());
    // Later than a's retry (30) and b's enqueue (1): both become due at 200.
    d.enable(200, "shop", false).expect("enable");
    assert_eq!(d.enable(200, "shop", false), Err(Error::NotDisabled));
    assert_eq!(status(&d, "a"), (State::Pending, 1, Some(200)));
    assert_eq!(records(&mut d, 199), Vec::<String>::new());
    // The schedule continues from a's count: its 2nd failure waits 60.
    assert_eq!(records(&mut d, 200), vec!["a #2 500 retry at 260"]);
    d.disable("shop").expect("disable");
    // Earlier than the pending retry at 260.
    d.enable(210, "shop", false).expect("enable");
    assert_eq!(
        records(&mut d, 210),
        vec!["a #3 200 delivered", "b #1 200 delivered"]
    );
}

#[test]
fn replay_revives_in_enqueue_order_with_fresh_attempts() {
    let mut d = shop();
    d.register("other", "u").expect("register");
    d.enqueue(0, "shop", "a", outcomes(&[404, 200]))
        .expect("enqueue");
    d.enqueue(0, "other", "x", outcomes(&[404]))
        .expect("enqueue");
    d.enqueue(0, "shop", "b", outcomes(&[500]))
        .expect("enqueue");
    d.enqueue(0, "shop", "c", outcomes(&[200]))
        .expect("enqueue");
    assert_eq!(
        records(&mut d, 0),
        vec!["a #1 404 dead", "x #1 404 dead", "b #1 500 retry at 30"]
    );
    d.disable("shop").expect("disable");
    d.enable(40, "shop", true).expect("enable");
    assert_eq!(d.dead_letters().collect::<Vec<_>>(), vec!["x"]);
    assert_eq!(status(&d, "a"), (State::Pending, 0, Some(40)));
    assert_eq!(status(&d, "x"), (State::Dead, 1, None));
    // a was revived at its original place, ahead of b; a's attempt #1 gets 404 again.
    assert_eq!(
        records(&mut d, 40),
        vec!["a #1 404 dead", "b #2 500 retry at 100"]
    );
    assert_eq!(d.dead_letters().collect::<Vec<_>>(), vec!["x", "a"]);
}

#[test]
fn replay_false_keeps_dead_letters() {
    let mut d = shop();
    d.enqueue(0, "shop", "a", outcomes(&[404]))
        .expect("enqueue");
    records(&mut d, 0);
    d.disable("shop").expect("disable");
    d.enable(5, "shop", false).expect("enable");
    assert_eq!(status(&d, "a"), (State::Dead, 1, None));
    assert_eq!(d.dead_letters().collect::<Vec<_>>(), vec!["a"]);
}

#[test]
fn errors_are_values_and_change_nothing() {
    let mut d = shop();
    assert_eq!(d.register("shop", "other"), Err(Error::DuplicateEndpoint));
    assert_eq!(
        d.enqueue(0, "nope", "e", outcomes(&[200])),
        Err(Error::UnknownEndpoint)
    );
    d.enqueue(0, "shop", "e", outcomes(&[200]))
        .expect("enqueue");
    assert_eq!(
        d.enqueue(9, "shop", "e", outcomes(&[500])),
        Err(Error::DuplicateEvent)
    );
    assert_eq!(d.status("nope"), Err(Error::UnknownEvent));
    assert_eq!(d.disable("nope"), Err(Error::UnknownEndpoint));
    assert_eq!(d.enable(0, "nope", true), Err(Error::UnknownEndpoint));
    assert_eq!(d.status("e").map(|s| s.attempts), Ok(0));
    assert_eq!(records(&mut d, 0), vec!["e #1 200 delivered"]);
    assert_eq!(d.status("f"), Err(Error::UnknownEvent));
}

#[test]
fn custom_policy_is_honoured() {
    let policy = RetryPolicy::new(2, vec![10]).expect("valid policy");
    let mut d = Dispatcher::new();
    d.register("s", "u").expect("register");
    d.set_policy(0, "s", Some(policy)).expect("set_policy");
    d.enqueue(0, "s", "e", outcomes(&[0])).expect("enqueue");
    assert_eq!(records(&mut d, 0), vec!["e #1 0 retry at 10"]);
    assert_eq!(records(&mut d, 10), vec!["e #2 0 dead"]);
    assert_eq!(d.set_policy(0, "t", None), Err(Error::UnknownEndpoint));
}

#[test]
fn enable_makes_every_pending_event_due_even_when_the_epoch_wraps() {
    for start in [0, u32::MAX - 1, u32::MAX] {
        let mut d = shop();
        d.endpoints[0].epoch = start;
        d.enqueue(0, "shop", "a", outcomes(&[500, 200])).expect("a");
        d.enqueue(5, "shop", "b", outcomes(&[200])).expect("b");
        assert_eq!(records(&mut d, 10), vec!["a #1 500 retry at 40"]);
        d.disable("shop").expect("disable");
        d.enqueue(20, "shop", "c", outcomes(&[200])).expect("c");
        d.enable(25, "shop", false).expect("enable");
        for id in ["a", "b", "c"] {
            assert_eq!(
                status(&d, id).2,
                Some(25),
                "{id} after enabling from epoch {start}"
            );
        }
        d.disable("shop").expect("disable again");
        d.enable(30, "shop", false).expect("enable again");
        assert_eq!(status(&d, "c").2, Some(30), "from epoch {start}");
        assert_eq!(
            records(&mut d, 30),
            vec![
                "a #2 200 delivered",
                "b #1 200 delivered",
                "c #1 200 delivered"
            ]
        );
    }
}

fn policy(attempts: u32, waits: &[u32]) -> Option<RetryPolicy> {
    Some(RetryPolicy::new(attempts, waits.to_vec()).expect("valid policy"))
}

#[test]
fn a_policy_change_moves_no_scheduled_retry_and_decides_the_next_failure() {
    let mut d = shop();
    d.enqueue(0, "shop", "e", outcomes(&[500]))
        .expect("enqueue");
    assert_eq!(records(&mut d, 0), vec!["e #1 500 retry at 30"]);
    // Fewer attempts than already made: the scheduled attempt still happens, then death.
    d.set_policy(0, "shop", policy(1, &[1000])).expect("set");
    assert_eq!(status(&d, "e"), (State::Pending, 1, Some(30)));
    assert_eq!(records(&mut d, 30), vec!["e #2 500 dead"]);
    d.set_policy(0, "shop", policy(4, &[7, 1000])).expect("set");
    d.enable(40, "shop", true).expect_err("not disabled");
    d.disable("shop").expect("disable");
    d.enable(40, "shop", true).expect("enable");
    // Replayed: attempt 1 again, under the policy now in force; no 300-second cap.
    assert_eq!(records(&mut d, 40), vec!["e #1 500 retry at 47"]);
    assert_eq!(records(&mut d, 47), vec!["e #2 500 retry at 1047"]);
    d.set_policy(0, "shop", None).expect("default");
    assert_eq!(records(&mut d, 1047), vec!["e #3 500 retry at 1167"]);
    assert_eq!(d.policy("shop").map(RetryPolicy::attempts), Ok(6));
}

#[test]
fn retry_after_is_clamped_to_the_policy_wait_and_twice_it() {
    let mut d = shop();
    let with = |r: i64, status: i64| {
        Outcomes::with_retry_after([(status, Some(r)), (200, None)]).expect("valid")
    };
    for (id, r, status, due) in [
        ("below", 5, 503, 30),
        ("inside", 45, 429, 45),
        ("above", 600, 503, 60),
        ("ignored", 600, 500, 30),
    ] {
        d.register(id, "u").expect("register");
        d.enqueue(0, id, id, with(r, status)).expect("enqueue");
        let got = records(&mut d, 0);
        assert_eq!(got, vec![format!("{id} #1 {status} retry at {due}")]);
    }
}

#[test]
fn a_due_time_past_the_limit_is_a_death() {
    let mut d = shop();
    d.enqueue(TS_LIMIT - 30, "shop", "at", outcomes(&[500]))
        .expect("at");
    assert_eq!(
        records(&mut d, TS_LIMIT - 30),
        vec![format!("at #1 500 retry at {TS_LIMIT}")]
    );
    assert_eq!(records(&mut d, TS_LIMIT), vec!["at #2 500 dead"]);
    assert_eq!(d.dead_letters().collect::<Vec<_>>(), vec!["at"]);
}

#[test]
fn gone_disables_the_endpoint_only_with_disable_on_gone() {
    let mut d = shop();
    d.register("other", "u").expect("register");
    let gone = RetryPolicy::default().with_disable_on_gone(true);
    d.set_policy(0, "shop", Some(gone)).expect("set");
    d.enqueue(0, "shop", "g", outcomes(&[410])).expect("g");
    d.enqueue(0, "shop", "behind", outcomes(&[200]))
        .expect("behind");
    d.enqueue(0, "other", "o", outcomes(&[410])).expect("o");
    let attempts = d.process(0);
    let flags: Vec<(u32, bool)> = attempts
        .iter()
        .map(|a| (a.event.0, a.disabled_endpoint))
        .collect();
    assert_eq!(flags, vec![(0, true), (2, false)]);
    assert_eq!(status(&d, "behind"), (State::Held, 0, None));
    assert_eq!(d.disable("shop"), Err(Error::AlreadyDisabled));
    assert_eq!(d.endpoint_of(attempts[0].event), "shop");
    d.enable(5, "shop", false).expect("enable");
    assert_eq!(records(&mut d, 5), vec!["behind #1 200 delivered"]);
}

#[test]
fn a_partial_recover_then_a_replay_keeps_enqueue_order() {
    let mut d = shop();
    for (id, ts) in [("a", 0), ("b", 10), ("c", 20)] {
        d.enqueue(ts, "shop", id, outcomes(&[404]))
            .expect("enqueue");
        assert_eq!(records(&mut d, ts), vec![format!("{id} #1 404 dead")]);
    }
    d.enqueue(30, "shop", "tail", outcomes(&[200]))
        .expect("tail");
    d.disable("shop").expect("disable");
    // b died at 10 and c at 20, both at or after 10: they come back, held; a stays dead.
    assert_eq!(d.recover(40, "shop", 10), Ok(2));
    assert_eq!(status(&d, "b"), (State::Held, 0, None));
    assert_eq!(d.dead_letters().collect::<Vec<_>>(), vec!["a"]);
    d.enable(50, "shop", true).expect("enable with replay");
    assert_eq!(
        records(&mut d, 50),
        vec![
            "a #1 404 dead",
            "b #1 404 dead",
            "c #1 404 dead",
            "tail #1 200 delivered"
        ]
    );
    assert_eq!(d.dead_letters().collect::<Vec<_>>(), vec!["a", "b", "c"]);
    assert_eq!(d.dead_letter("b").map(|l| l.died_at), Ok(50));
    assert_eq!(d.dead_letter("tail"), Err(Error::NotDead));
    assert_eq!(d.recover(60, "shop", 51), Ok(0));
}

#[test]
fn consecutive_failures_disable_and_a_successful_enable_resets_them() {
    let mut d = shop();
    let policy = RetryPolicy::new(1, vec![5])
        .and_then(|p| p.with_disable_after(2))
        .expect("valid");
    d.set_policy(0, "shop", Some(policy)).expect("set");
    d.enqueue(0, "shop", "a", outcomes(&[500])).expect("a");
    d.enqueue(0, "shop", "b", outcomes(&[0])).expect("b");
    d.enqueue(0, "shop", "c", outcomes(&[200])).expect("c");
    let attempts = d.process(0);
    let flags: Vec<bool> = attempts.iter().map(|a| a.disabled_endpoint).collect();
    assert_eq!(flags, vec![false, true]);
    let report = d.endpoint_report(0, "shop").expect("report");
    assert_eq!(
        (report.disabled, report.consecutive_failures),
        (Some(DisableReason::Failing), 2)
    );
    d.enable(5, "shop", false).expect("enable");
    assert_eq!(
        d.endpoint_report(0, "shop").map(|r| r.consecutive_failures),
        Ok(0)
    );
    assert_eq!(records(&mut d, 5), vec!["c #1 200 delivered"]);
}

#[test]
fn room_made_for_events_keeps_them_in_place_and_changes_nothing_else() {
    let (mut plain, mut roomy) = (shop(), shop());
    roomy.reserve_events(1000);
    let (start, end, size) = roomy.event_room();
    assert_eq!((end - start) / size, 1000);
    for i in 0..1000 {
        let id = format!("e{i}");
        let script = outcomes(&[503, 200]);
        assert_eq!(
            plain.enqueue(i, "shop", &id, script.clone()),
            roomy.enqueue(i, "shop", &id, script)
        );
    }
    assert_eq!(roomy.event_room().0, start, "the events did not move");
    assert_eq!(records(&mut plain, 5000), records(&mut roomy, 5000));
    // Room beyond what can be had is not made, and nothing fails.
    roomy.reserve_events(usize::MAX);
    assert_eq!(roomy.event_room().0, start);
}

#[test]
fn room_for_events_makes_the_id_table_for_a_quarter_of_them_up_to_a_bound() {
    let mut d = shop();
    d.reserve_events(40_000);
    let made = d.event_ids.capacity();
    assert!((10_000..20_000).contains(&made), "{made}");
    for i in 0..10_000 {
        d.enqueue(i, "shop", &format!("e{i}"), outcomes(&[200]))
            .expect("enqueue");
    }
    assert_eq!(d.event_ids.capacity(), made, "the table did not grow");
    // However many events the room is for, the table made at once stays within the bound.
    let mut big = shop();
    big.reserve_events(usize::MAX);
    let made = big.event_ids.capacity();
    assert!(
        (EVENT_IDS_AHEAD..2 * EVENT_IDS_AHEAD).contains(&made),
        "{made}"
    );
    // And without a hint, nothing is made ahead.
    assert!(shop().event_ids.capacity() < 1000);
}

#[test]
fn an_event_keeps_every_lifecycle_as_set_in_its_state_and_word() {
    let (_, name) = Ids::default()
        .insert("e", &[] as &[Event])
        .expect("an id")
        .expect("a new id");
    let (script, _) = outcomes(&[500, 200]).into_script(MAX_ATTEMPTS);
    let mut event = Event::new(name, EndpointKey(0), 0, script, Ts::MIN);
    assert_eq!(event.lifecycle(), Lifecycle::Pending { due_at: Ts::MIN });
    let all = [
        Lifecycle::Pending { due_at: Ts::MAX },
        Lifecycle::Delivered,
        Lifecycle::Pending { due_at: -1 },
        Lifecycle::Dead { letter: u64::MAX },
        Lifecycle::Pending { due_at: 0 },
        Lifecycle::Dead { letter: 0 },
        Lifecycle::Pending { due_at: -TS_LIMIT },
        Lifecycle::Pending { due_at: TS_LIMIT },
        Lifecycle::Dead { letter: 1 << 63 },
        Lifecycle::Delivered,
    ];
    for lifecycle in all {
        event.set_lifecycle(lifecycle);
        assert_eq!(event.lifecycle(), lifecycle);
    }
    assert_eq!(event.attempts, 0);
}

#[test]
fn ready_entries_order_as_their_time_and_key_do() {
    let mut p = crate::prng::Prng::new(7);
    let mut pairs: Vec<(Ts, u32)> = vec![
        (i64::MIN, 0),
        (i64::MIN, u32::MAX),
        (-1, 5),
        (0, 0),
        (0, u32::MAX),
        (1, 0),
        (i64::MAX, 0),
        (i64::MAX, u32::MAX),
    ];
    pairs.extend((0..500).map(|_| {
        let time = (p.next_u64() as i64) >> p.below(64);
        (time, p.next_u64() as u32 >> p.below(32))
    }));
    for &(ta, ka) in &pairs {
        let a = Due::new(ta, EventKey(ka));
        assert_eq!(a.parts(), (ta, EventKey(ka)));
        for &(tb, kb) in &pairs {
            let b = Due::new(tb, EventKey(kb));
            assert_eq!(a.cmp(&b), (ta, ka).cmp(&(tb, kb)), "{ta} {ka} / {tb} {kb}");
        }
    }
}
