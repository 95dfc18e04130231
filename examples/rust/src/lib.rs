//! A simulated webhook dispatcher: retries with capped exponential backoff, per-endpoint
//! delivery order, and pausing endpoints with optional replay of dead letters.
//!
//! [`run`] is the whole public interface: it replays a list of JSON operations against a fresh
//! dispatcher and returns one JSON result per operation.

mod decode;
mod dispatcher;
mod error;

use serde_json::{Map, Value};

use decode::{Command, Operation};
use dispatcher::{Dispatcher, Status};
use error::Error;

/// Executes `operations` in order against a fresh dispatcher, one result per operation.
///
/// Each operation is `[name, ts, ...args]`. A rejected operation yields the string
/// `"error: <code>"`, leaves the dispatcher untouched, and the run goes on.
pub fn run(operations: &[Value]) -> Vec<Value> {
    let mut dispatcher = Dispatcher::new();
    operations
        .iter()
        .map(|operation| {
            decode::decode(operation)
                .and_then(|operation| execute(&mut dispatcher, operation))
                .unwrap_or_else(|error| Value::String(format!("error: {}", error.code())))
        })
        .collect()
}

fn execute(
    dispatcher: &mut Dispatcher,
    Operation { ts, command }: Operation,
) -> Result<Value, Error> {
    Ok(match command {
        Command::Register { endpoint } => {
            dispatcher.register(&endpoint)?;
            Value::Bool(true)
        }
        Command::Enqueue {
            endpoint,
            event,
            outcomes,
        } => {
            dispatcher.enqueue(ts, &endpoint, &event, outcomes)?;
            Value::from("queued")
        }
        Command::Process => strings(dispatcher.process(ts)),
        Command::Status { event } => status_object(dispatcher.status(&event)?),
        Command::Disable { endpoint } => {
            dispatcher.disable(&endpoint)?;
            Value::Bool(true)
        }
        Command::Enable {
            endpoint,
            replay_dead,
        } => {
            dispatcher.enable(ts, &endpoint, replay_dead)?;
            Value::Bool(true)
        }
        Command::DeadLetters { endpoint } => strings(dispatcher.dead_letters(endpoint.as_deref())?),
    })
}

fn strings(items: Vec<String>) -> Value {
    Value::Array(items.into_iter().map(Value::String).collect())
}

fn status_object(status: Status) -> Value {
    let mut object = Map::new();
    object.insert("state".into(), Value::from(status.state.as_str()));
    object.insert("attempts".into(), Value::from(status.attempts));
    object.insert(
        "next_attempt_at".into(),
        status.next_attempt_at.map_or(Value::Null, Value::from),
    );
    Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::run;
    use serde_json::{Value, json};

    fn ops(value: Value) -> Vec<Value> {
        match value {
            Value::Array(items) => items,
            other => panic!("operations must be a JSON array, got {other}"),
        }
    }

    #[test]
    fn worked_example_retries() {
        let operations = ops(json!([
            ["register", 0, "shop", "https://shop.example/hooks"],
            ["enqueue", 0, "shop", "evt-1", [503, 503, 200]],
            ["process", 0],
            ["process", 30],
            ["process", 89],
            ["process", 90],
            ["status", 90, "evt-1"]
        ]));
        let expected = ops(json!([
            true,
            "queued",
            ["evt-1 #1 503 retry at 30"],
            ["evt-1 #2 503 retry at 90"],
            [],
            ["evt-1 #3 200 delivered"],
            {"state": "delivered", "attempts": 3, "next_attempt_at": null}
        ]));
        assert_eq!(run(&operations), expected);
    }

    #[test]
    fn worked_example_ordering() {
        let operations = ops(json!([
            ["register", 0, "shop", "https://shop.example/hooks"],
            ["enqueue", 0, "shop", "evt-1", [500, 200]],
            ["enqueue", 0, "shop", "evt-2", [200]],
            ["process", 0],
            ["process", 30]
        ]));
        let expected = ops(json!([
            true,
            "queued",
            "queued",
            ["evt-1 #1 500 retry at 30"],
            ["evt-1 #2 200 delivered", "evt-2 #1 200 delivered"]
        ]));
        assert_eq!(run(&operations), expected);
    }

    #[test]
    fn worked_example_pause() {
        let operations = ops(json!([
            ["register", 0, "shop", "https://shop.example/hooks"],
            ["enqueue", 0, "shop", "evt-1", [404]],
            ["process", 0],
            ["disable", 10, "shop"],
            ["enqueue", 20, "shop", "evt-2", [200]],
            ["enable", 50, "shop", true],
            ["process", 50]
        ]));
        let expected = ops(json!([
            true,
            "queued",
            ["evt-1 #1 404 dead"],
            true,
            "queued",
            true,
            ["evt-1 #1 404 dead", "evt-2 #1 200 delivered"]
        ]));
        assert_eq!(run(&operations), expected);
    }

    #[test]
    fn status_while_waiting_held_and_revived() {
        let operations = ops(json!([
            ["register", 0, "shop", "u"],
            ["enqueue", 0, "shop", "evt-1", [500, 200]],
            ["enqueue", 0, "shop", "evt-2", [404]],
            ["process", 0],
            ["status", 0, "evt-2"],
            ["process", 30],
            ["disable", 40, "shop"],
            ["status", 40, "evt-1"],
            ["status", 40, "evt-2"],
            ["dead_letters", 40, "shop"],
            ["enable", 50, "shop", true],
            ["status", 50, "evt-2"],
            ["dead_letters", 50]
        ]));
        let expected = ops(json!([
            true,
            "queued",
            "queued",
            ["evt-1 #1 500 retry at 30"],
            {"state": "pending", "attempts": 0, "next_attempt_at": 0},
            ["evt-1 #2 200 delivered", "evt-2 #1 404 dead"],
            true,
            {"state": "delivered", "attempts": 2, "next_attempt_at": null},
            {"state": "dead", "attempts": 1, "next_attempt_at": null},
            ["evt-2"],
            true,
            {"state": "pending", "attempts": 0, "next_attempt_at": 50},
            []
        ]));
        assert_eq!(run(&operations), expected);
    }

    #[test]
    fn errors_leave_state_untouched() {
        let operations = ops(json!([
            ["register", 0, "shop", "u"],
            ["register", 0, "shop", "v"],
            ["enqueue", 0, "nope", "evt-1", [200]],
            ["enqueue", 0, "shop", "evt-1", [200]],
            ["enqueue", 0, "shop", "evt-1", [200]],
            ["enable", 0, "shop", 1],
            ["enable", 0, "shop", false],
            ["status", 0, "evt-9"],
            ["dead_letters", 0, "nope"],
            ["frobnicate", 0],
            ["process", 0]
        ]));
        let expected = ops(json!([
            true,
            "error: duplicate endpoint",
            "error: unknown endpoint",
            "queued",
            "error: duplicate event",
            "error: invalid arguments",
            "error: not disabled",
            "error: unknown event",
            "error: unknown endpoint",
            "error: unknown operation",
            ["evt-1 #1 200 delivered"]
        ]));
        assert_eq!(run(&operations), expected);
    }
}
