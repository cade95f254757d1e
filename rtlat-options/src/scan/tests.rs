//! The option scanner's tests: getopt_long's rules, one by one.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum T {
    Flag,
    Req,
    Opt,
    Cpus,
    Reqlong,
    Own,
}

const SPECS: &[Spec<T>] = &[
    Spec {
        id: T::Flag,
        short: Some('m'),
        long: Some("mlockall"),
        has_arg: HasArg::No,
        abbreviable: true,
        ..Spec::new(T::Flag)
    },
    Spec {
        id: T::Req,
        short: Some('i'),
        long: Some("interval"),
        has_arg: HasArg::Required,
        abbreviable: true,
        ..Spec::new(T::Req)
    },
    Spec {
        id: T::Opt,
        short: Some('t'),
        long: Some("threads"),
        has_arg: HasArg::Optional(Peek::Number),
        abbreviable: true,
        ..Spec::new(T::Opt)
    },
    Spec {
        id: T::Cpus,
        short: Some('a'),
        long: Some("affinity"),
        has_arg: HasArg::Optional(Peek::CpuList),
        abbreviable: true,
        ..Spec::new(T::Cpus)
    },
    Spec {
        id: T::Reqlong,
        short: None,
        long: Some("intervention"),
        has_arg: HasArg::Required,
        abbreviable: true,
        ..Spec::new(T::Reqlong)
    },
    Spec {
        id: T::Own,
        short: None,
        long: Some("mlockown"),
        has_arg: HasArg::No,
        abbreviable: false,
        ..Spec::new(T::Own)
    },
];

struct Expect;
impl Describe<T> for Expect {
    fn expected(&self, _: T) -> String {
        "something".into()
    }
}

fn run(words: &[&str]) -> Result<Vec<(T, Option<String>)>, UsageError> {
    let args: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    scan(&args, SPECS, &Expect).map(|v| v.into_iter().map(|f| (f.id, f.value)).collect())
}

fn v(s: &str) -> Option<String> {
    Some(s.to_owned())
}

#[test]
fn short_forms() {
    assert_eq!(run(&["-m"]).unwrap(), [(T::Flag, None)]);
    assert_eq!(
        run(&["-mi500"]).unwrap(),
        [(T::Flag, None), (T::Req, v("500"))]
    );
    assert_eq!(
        run(&["-mi", "500"]).unwrap(),
        [(T::Flag, None), (T::Req, v("500"))]
    );
    assert_eq!(run(&["-i", "-5"]).unwrap(), [(T::Req, v("-5"))]);
    assert_eq!(run(&["-t5"]).unwrap(), [(T::Opt, v("5"))]);
    assert_eq!(run(&["-t", "5"]).unwrap(), [(T::Opt, v("5"))]);
    assert_eq!(
        run(&["-t", "-m"]).unwrap(),
        [(T::Opt, None), (T::Flag, None)]
    );
    assert_eq!(run(&["-t", "-1"]).unwrap(), [(T::Opt, v("-1"))]);
    // One word `-t 2` (a harness quoting the pair), or a value with a leading space.
    assert_eq!(run(&["-t 2"]).unwrap(), [(T::Opt, v(" 2"))]);
    assert_eq!(run(&["-i 500"]).unwrap(), [(T::Req, v(" 500"))]);
    assert_eq!(run(&["-t", " 2"]).unwrap(), [(T::Opt, v(" 2"))]);
    assert_eq!(run(&["-a", " 1"]).unwrap(), [(T::Cpus, v(" 1"))]);
    assert_eq!(run(&["-mt"]).unwrap(), [(T::Flag, None), (T::Opt, None)]);
    assert_eq!(run(&["-a", "!0"]).unwrap(), [(T::Cpus, v("!0"))]);
    assert_eq!(run(&["-a", "all"]).unwrap(), [(T::Cpus, v("all"))]);
    assert_eq!(
        run(&["-a", "-t"]).unwrap(),
        [(T::Cpus, None), (T::Opt, None)]
    );
    // A word after an optional-value option that does not look like its value: the
    // error names the option it was probably meant for.
    assert!(matches!(
        run(&["-t", "all"]),
        Err(UsageError::InvalidValue { option, value, .. }) if option == "-t/--threads" && value == "all"
    ));
}

fn getopt_says(words: &[&str]) -> Option<String> {
    let args: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    scan_detailed(&args, SPECS, &Expect)
        .err()
        .and_then(|e| e.getopt)
}

#[test]
fn glibc_complaints() {
    let says = |w: &[&str], line: &str| assert_eq!(getopt_says(w).as_deref(), Some(line));
    says(&["-e"], "invalid option -- 'e'");
    says(&["-me"], "invalid option -- 'e'");
    says(&["--nope"], "unrecognized option '--nope'");
    says(&["--nope=3"], "unrecognized option '--nope=3'");
    says(&["-i"], "option requires an argument -- 'i'");
    says(&["--interval"], "option '--interval' requires an argument");
    says(
        &["--mlock=1"],
        "option '--mlockall' doesn't allow an argument",
    );
    says(
        &["--inter=4"],
        "option '--inter=4' is ambiguous; possibilities: '--interval' '--intervention'",
    );
    // Words getopt skips: rtlat refuses them, getopt says nothing.
    assert_eq!(getopt_says(&["5"]), None);
    assert_eq!(getopt_says(&["-t", "all"]), None);
}

#[test]
fn long_forms() {
    assert_eq!(run(&["--interval=5"]).unwrap(), [(T::Req, v("5"))]);
    assert_eq!(run(&["--interval", "5"]).unwrap(), [(T::Req, v("5"))]);
    assert_eq!(run(&["--interval="]).unwrap(), [(T::Req, v(""))]);
    assert_eq!(run(&["--threads", "3"]).unwrap(), [(T::Opt, v("3"))]);
    assert_eq!(run(&["--threads=3"]).unwrap(), [(T::Opt, v("3"))]);
    assert_eq!(run(&["--thr"]).unwrap(), [(T::Opt, None)]);
    assert_eq!(run(&["--mlock"]).unwrap(), [(T::Flag, None)]);
    assert_eq!(run(&["--mlockown"]).unwrap(), [(T::Own, None)]);
    assert_eq!(
        run(&["--interval"]).unwrap_err().to_string(),
        "option -i/--interval needs a value: expected something"
    );
    assert!(matches!(
        run(&["--inter=4"]),
        Err(UsageError::AmbiguousOption { .. })
    ));
    assert!(matches!(
        run(&["--mlockall=1"]),
        Err(UsageError::UnexpectedValue { .. })
    ));
    assert!(matches!(
        run(&["--nope"]),
        Err(UsageError::UnknownOption { .. })
    ));
    assert!(matches!(run(&["--"]), Ok(v) if v.is_empty()));
    assert!(matches!(
        run(&["--", "x"]),
        Err(UsageError::StrayArgument { .. })
    ));
    assert!(matches!(run(&["-"]), Err(UsageError::StrayArgument { .. })));
    assert!(matches!(run(&[""]), Err(UsageError::StrayArgument { .. })));
    assert!(matches!(run(&["-i"]), Err(UsageError::MissingValue { .. })));
    assert!(matches!(
        run(&["-é"]),
        Err(UsageError::UnknownOption { .. })
    ));
    assert!(matches!(
        run(&["--="]),
        Err(UsageError::UnknownOption { .. })
    ));
}
