//! G7 (c): the `timeout` in front of a shell whose `-c` script holds a wait loop, read as GNU
//! `timeout` reads its arguments: options in every spelling (clusters, attached values,
//! abbreviated long options), signals by number (exit-status forms too) or name, durations with
//! suffixes, and chains of nested timeouts.

use shell_syntax::view::{Arg, EnvSource, Invocation};

/// Timeout parameters as GNU `timeout` reads them.
#[derive(Debug, Default)]
pub(crate) struct TimeoutArgs {
    /// Signal is 0 (sends nothing).
    signal_zero: bool,
    /// `-k` with a positive duration.
    kill_after: bool,
    /// The duration operand is positive.
    positive: bool,
}

/// The timeout chain in front of a shell: `Ok(Some)` when it bounds, `Ok(None)` when there is
/// no timeout, `Err` when there is one that does not count.
pub(crate) fn launcher_timeout(inv: &Invocation) -> Result<Option<String>, String> {
    let first = inv
        .wrappers
        .iter()
        .position(|w| w.name == "timeout" || w.name == "gtimeout");
    let Some(first) = first else {
        return Ok(None);
    };
    if inv.env.iter().any(|e| {
        matches!(e.source, EnvSource::Prefix | EnvSource::EnvCommand)
            && e.value.as_ref().is_none_or(|v| v.is_dynamic())
    }) {
        return Err("a word before the shell is decided at run time".into());
    }
    let chain = &inv.wrappers[first..];
    if chain.iter().any(|w| w.args.iter().any(|a| a.is_dynamic())) {
        return Err("a word between the timeout and the shell is decided at run time".into());
    }
    if chain.iter().any(|w| w.name == "setsid") {
        return Err("setsid moves the shell out of the timeout's reach".into());
    }
    // Outer timeouts must be inert and chained directly; the innermost is the bound.
    let last = chain
        .iter()
        .rposition(|w| w.name == "timeout" || w.name == "gtimeout")
        .unwrap_or(0);
    for (i, w) in chain[..last].iter().enumerate() {
        let is_timeout = w.name == "timeout" || w.name == "gtimeout";
        if !is_timeout {
            return Err(format!("`{}` sits between nested timeouts", w.name));
        }
        let t = parse_timeout(&w.args).ok_or("a timeout's arguments are not valid")?;
        if !t.signal_zero || t.kill_after {
            return Err(format!("outer timeout #{} is not inert", i + 1));
        }
    }
    let values: Vec<String> = chain[last]
        .args
        .iter()
        .filter_map(|a| a.value.as_deref().map(String::from))
        .collect();
    let t = match parse_timeout(&chain[last].args) {
        Some(t) => t,
        // GNU timeout refuses an invalid signal or duration and runs nothing.
        None => return Ok(Some("timeout rejects its arguments (nothing runs)".into())),
    };
    if !t.positive {
        return Err("the timeout's duration is 0 (no limit)".into());
    }
    if t.signal_zero && !t.kill_after {
        return Err("the timeout's signal is 0 and no -k follows".into());
    }
    Ok(Some(format!("timeout {}", values.join(" "))))
}

/// Parse `timeout` options and the duration operand. `None` when timeout would reject them.
pub(crate) fn parse_timeout(args: &[Arg]) -> Option<TimeoutArgs> {
    let vals: Vec<&str> = args
        .iter()
        .map(|a| a.value.as_deref())
        .collect::<Option<_>>()?;
    let mut sig = Signal::Valid(15);
    let mut kill = None;
    let mut duration = None;
    let mut i = 0;
    while i < vals.len() {
        let a = vals[i];
        i += 1;
        if a == "--" {
            duration = vals.get(i).copied();
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let full = [
                "signal",
                "kill-after",
                "verbose",
                "preserve-status",
                "foreground",
            ]
            .into_iter()
            .filter(|f| !name.is_empty() && f.starts_with(name))
            .collect::<Vec<_>>();
            let [full] = full[..] else {
                return None;
            };
            let takes = full == "signal" || full == "kill-after";
            let value = if takes {
                match inline {
                    Some(v) => Some(v),
                    None => {
                        let v = vals.get(i).copied();
                        i += 1;
                        Some(v?)
                    }
                }
            } else {
                None
            };
            match (full, value) {
                ("signal", Some(v)) => sig = parse_signal(v),
                ("kill-after", Some(v)) => kill = Some(parse_duration(v)?),
                _ => {}
            }
        } else if a.len() > 1 && a.starts_with('-') {
            let chars: Vec<char> = a[1..].chars().collect();
            let mut j = 0;
            while j < chars.len() {
                let c = chars[j];
                j += 1;
                match c {
                    'v' | 'p' | 'f' => {}
                    's' | 'k' => {
                        let rest: String = chars[j..].iter().collect();
                        let v = if rest.is_empty() {
                            let v = vals.get(i).copied()?;
                            i += 1;
                            v.to_string()
                        } else {
                            rest
                        };
                        if c == 's' {
                            sig = parse_signal(&v);
                        } else {
                            kill = Some(parse_duration(&v)?);
                        }
                        break;
                    }
                    _ => return None,
                }
            }
        } else {
            duration = Some(a);
            break;
        }
    }
    let d = parse_duration(duration?)?;
    let signal_zero = match sig {
        Signal::Valid(n) => n == 0,
        Signal::Invalid => return None,
    };
    Some(TimeoutArgs {
        signal_zero,
        // An infinite duration (`inf`) bounds nothing.
        kill_after: kill.is_some_and(|k| k > 0.0 && k.is_finite()),
        positive: d > 0.0 && d.is_finite(),
    })
}

enum Signal {
    Valid(u32),
    Invalid,
}

/// GNU `timeout -s`: a number (an exit-status form such as 137 means its low 7 bits) or a
/// name with an optional `SIG` prefix, any case; `EXIT` is 0.
fn parse_signal(v: &str) -> Signal {
    let numeric = |digits: &str| -> Signal {
        let Ok(n) = digits.parse::<i64>() else {
            return Signal::Invalid;
        };
        let Ok(i) = i32::try_from(n) else {
            return Signal::Invalid;
        };
        let low = i & 0x7f;
        // Exit-status forms: low 7 bits name the signal; 0 in the low bits sends nothing.
        let s = if low != 0 && low != 0x7f { low } else { i };
        match s {
            0..=64 => Signal::Valid(s as u32),
            _ if low == 0 => Signal::Valid(0),
            _ => Signal::Invalid,
        }
    };
    if v.starts_with(|c: char| c.is_ascii_digit()) {
        return if v.chars().all(|c| c.is_ascii_digit()) {
            numeric(v)
        } else {
            Signal::Invalid
        };
    }
    let up = v.to_ascii_uppercase();
    let name = up.strip_prefix("SIG").unwrap_or(&up);
    if name.is_empty() {
        return Signal::Invalid;
    }
    if name.chars().all(|c| c.is_ascii_digit()) {
        return numeric(name);
    }
    if name == "EXIT" {
        return Signal::Valid(0);
    }
    // Any other name is a real signal (or an invalid one, on which timeout runs nothing).
    Signal::Valid(15)
}

/// A GNU duration as `timeout` reads it (`xstrtod`, then one optional `s`/`m`/`h`/`d`):
/// leading blanks, an optional `+`, decimal or hexadecimal (`0x1.8p1`) numbers with exponents,
/// `inf`/`infinity` (no bound: an infinite wait); a negative number, `nan`, trailing blanks or
/// any other suffix make `timeout` refuse to run (`None`). Checked with GNU timeout: `0x0`,
/// `0e0`, `+0`, ` 0`, `-0` (after `--`) are 0 (no timeout), `0x0.1` is 1/16 s, `-1` and `1 `
/// are refused.
fn parse_duration(v: &str) -> Option<f64> {
    let v = v.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (num, mult) = match v.chars().last()? {
        's' => (&v[..v.len() - 1], 1.0),
        'm' => (&v[..v.len() - 1], 60.0),
        'h' => (&v[..v.len() - 1], 3600.0),
        'd' => (&v[..v.len() - 1], 86400.0),
        _ => (v, 1.0),
    };
    // A `-` sign: `-0` (any spelling of zero) is 0, anything below is refused.
    let (negative, num) = match num.strip_prefix('-') {
        Some(n) => (true, n),
        None => (false, num.strip_prefix('+').unwrap_or(num)),
    };
    let n = c_number(num)?;
    (!negative || n == 0.0).then_some(n * mult)
}

/// A number as C's `strtod` reads the whole of `s` (no sign): decimal with an optional
/// exponent, hexadecimal with an optional binary exponent, `inf`/`infinity`.
fn c_number(s: &str) -> Option<f64> {
    let lower = s.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Some(f64::INFINITY);
    }
    if let Some(hex) = lower.strip_prefix("0x") {
        let (mantissa, exp) = match hex.split_once('p') {
            Some((m, e)) => (m, e.parse::<i32>().ok()?),
            None => (hex, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        let mut n = 0f64;
        for c in int.chars() {
            n = n * 16.0 + f64::from(c.to_digit(16)?);
        }
        let mut scale = 1.0 / 16.0;
        for c in frac.chars() {
            n += f64::from(c.to_digit(16)?) * scale;
            scale /= 16.0;
        }
        return Some(n * 2f64.powi(exp));
    }
    let (mantissa, exp) = match lower.split_once('e') {
        Some((m, e)) => {
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            (m, e)
        }
        None => (lower.as_str(), "0"),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if (int.is_empty() && frac.is_empty())
        || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit())
    {
        return None;
    }
    format!("{mantissa}e{exp}").parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(v: &str) -> Option<u32> {
        match parse_signal(v) {
            Signal::Valid(n) => Some(n),
            Signal::Invalid => None,
        }
    }

    #[test]
    fn signals_as_gnu_timeout_reads_them() {
        for zero in [
            "0", "00", "EXIT", "exit", "SIGEXIT", "sig0", "SIG00", "128", "256",
        ] {
            assert_eq!(sig(zero), Some(0), "{zero}");
        }
        // Any other name is a real signal (or one timeout rejects): never 0.
        assert!(sig("KILL").is_some_and(|n| n != 0));
        assert!(sig("sigterm").is_some_and(|n| n != 0));
        assert_eq!(sig("9"), Some(9));
        assert_eq!(sig("137"), Some(9), "exit-status form");
        assert_eq!(sig("65"), None);
        assert_eq!(sig("255"), None);
        assert_eq!(sig("99999999999999999999"), None);
        assert_ne!(sig("+1"), Some(0));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("600"), Some(600.0));
        assert_eq!(parse_duration(".5"), Some(0.5));
        assert_eq!(parse_duration("2m"), Some(120.0));
        assert_eq!(parse_duration("0"), Some(0.0));
        assert_eq!(parse_duration("1x"), None);
        // GNU timeout (checked): strtod's spellings, one suffix letter, no trailing blank.
        for (v, want) in [
            ("0x0", Some(0.0)),
            ("0e0", Some(0.0)),
            ("+0", Some(0.0)),
            (" 0", Some(0.0)),
            ("00", Some(0.0)),
            ("0x1s", Some(1.0)),
            ("0x0.1", Some(1.0 / 16.0)),
            ("1e1m", Some(600.0)),
            ("1e-9", Some(1e-9)),
            (" +5", Some(5.0)),
            ("1 ", None),
            ("-0", Some(0.0)),
            ("-0x0", Some(0.0)),
            ("-1", None),
            ("nan", None),
            ("0x", None),
            ("1e", None),
        ] {
            assert_eq!(parse_duration(v), want, "{v:?}");
        }
        assert_eq!(parse_duration("inf"), Some(f64::INFINITY));
    }

    fn targs(s: &str) -> Option<TimeoutArgs> {
        let arena = bumpalo::Bump::new();
        let args: Vec<Arg> = s
            .split_whitespace()
            .map(|w| Arg::synthetic(&arena, w, Default::default()))
            .collect();
        parse_timeout(&args)
    }

    #[test]
    fn timeout_options_in_every_spelling() {
        let t = targs("-vs0 900").expect("valid");
        assert!(t.signal_zero && !t.kill_after && t.positive);
        let t = targs("--sig=0 --k=5 900").expect("valid");
        assert!(t.signal_zero && t.kill_after);
        let t = targs("-s 0 -s KILL 900").expect("valid");
        assert!(!t.signal_zero);
        let t = targs("-k0 -s0 900").expect("valid");
        assert!(t.signal_zero && !t.kill_after);
        assert!(!targs("0").expect("valid").positive);
        assert!(targs("--help").is_none());
        assert!(targs("-x 5").is_none());
    }
}
