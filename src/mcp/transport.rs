//! The server's standard input and output as the MCP library sees them: every line the
//! client sends is checked first, so that a line that is not JSON gets JSON-RPC's parse error
//! (-32700) and a line over [`MAX_LINE`] an error naming the limit, where the library would
//! drop either without a word and leave the client waiting. Lines out are written whole, in
//! the order they are made, from one task.

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc::UnboundedSender;

/// The longest request line read: room for a patch at the default `llm-apply.maxPatchSize`
/// (256 MiB) with JSON's escapes. A longer one is answered with an error naming this limit.
pub const MAX_LINE: usize = 512 << 20;

/// The pipes the MCP library reads and writes (its line limit is set above ours, so it sees
/// only what passed), and the task that writes everything to standard output: await it
/// after the session ends, so that the last answers are out before the process exits.
pub fn start() -> (DuplexStream, DuplexStream, tokio::task::JoinHandle<()>) {
    let (mut to_library, library_reads) = tokio::io::duplex(1 << 16);
    let (library_writes, from_library) = tokio::io::duplex(1 << 16);
    let (out, mut lines) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = lines.recv().await {
            if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
                return;
            }
        }
    });
    let answers = out.clone();
    tokio::spawn(async move {
        let mut from = BufReader::new(from_library);
        loop {
            let mut line = Vec::new();
            match from.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    if answers.send(line).is_err() {
                        return;
                    }
                }
            }
        }
    });
    tokio::spawn(async move {
        let mut stdin = BufReader::with_capacity(1 << 16, tokio::io::stdin());
        let mut line = Vec::new();
        let mut over = 0usize;
        let mut head: Vec<u8> = Vec::new();
        loop {
            let (taken, ended) = {
                let buf = match stdin.fill_buf().await {
                    Ok(b) if !b.is_empty() => b,
                    _ => break,
                };
                let end = memchr::memchr(b'\n', buf);
                let take = end.map_or(buf.len(), |i| i + 1);
                if over == 0 && line.len() + take <= MAX_LINE {
                    line.extend_from_slice(&buf[..take]);
                } else {
                    if over == 0 {
                        head = line[..line.len().min(4096)].to_vec();
                        over = line.len();
                        line = Vec::new();
                    }
                    over += take;
                }
                (take, end.is_some())
            };
            stdin.consume(taken);
            if !ended {
                continue;
            }
            if over > 0 {
                let _ = out.send(too_long(&head, over));
                over = 0;
                continue;
            }
            let whole = std::mem::take(&mut line);
            if !pass(whole, &mut to_library, &out).await {
                break;
            }
        }
        // The client's last line may lack its newline.
        if over == 0 && !line.is_empty() {
            line.push(b'\n');
            pass(line, &mut to_library, &out).await;
        }
        let _ = to_library.shutdown().await;
    });
    (library_reads, library_writes, writer)
}

/// Hand a line to the library, or answer it here when it is not JSON. False when the
/// library has gone.
async fn pass(line: Vec<u8>, library: &mut DuplexStream, out: &UnboundedSender<Vec<u8>>) -> bool {
    let text = line.trim_ascii();
    if text.is_empty() {
        return true;
    }
    if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(text) {
        let answer = serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": -32700, "message": format!("Parse error: the line is not JSON ({e})")},
        });
        let _ = out.send(line_of(&answer));
        return true;
    }
    library.write_all(&line).await.is_ok()
}

/// The answer to a line over [`MAX_LINE`]: an error for its request's id (read from the
/// line's start, where clients put it) that names the limit.
fn too_long(head: &[u8], size: usize) -> Vec<u8> {
    let id = regex::bytes::Regex::new(r#""id"\s*:\s*("(?:[^"\\]|\\.)*"|-?[0-9]+)"#)
        .expect("a valid pattern")
        .captures(head)
        .and_then(|c| serde_json::from_slice::<serde_json::Value>(&c[1]).ok())
        .unwrap_or(serde_json::Value::Null);
    let answer = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": -32600,
            "message": format!(
                "the request line is {size} bytes, over this server's limit of {} MiB per line; nothing was done (send a smaller patch, or apply it with the git llm-apply command)",
                MAX_LINE >> 20
            ),
        },
    });
    line_of(&answer)
}

fn line_of(v: &serde_json::Value) -> Vec<u8> {
    let mut s = serde_json::to_vec(v).expect("a value serializes");
    s.push(b'\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_over_the_limit_is_answered_for_its_id_naming_the_limit() {
        for (head, id) in [
            (
                &br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"#[..],
                json_id(7),
            ),
            (
                br#"{"method":"tools/call","id": "a\"b","params""#,
                json_id("a\"b"),
            ),
            (
                br#"{"method":"tools/call","params":{"arguments":{"patch":"xx"#,
                Value::Null,
            ),
        ] {
            let answer: Value = serde_json::from_slice(&too_long(head, 600 << 20)).unwrap();
            assert_eq!(answer["id"], id, "{answer}");
            assert_eq!(answer["error"]["code"], -32600);
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(
                message.contains("629145600 bytes") && message.contains("512 MiB"),
                "{message}"
            );
        }
    }

    use serde_json::Value;

    fn json_id(v: impl Into<Value>) -> Value {
        v.into()
    }
}
