//! The `sys` module against the installed headers: a C file of `_Static_assert`s, generated
//! from the Rust side's sizes, alignments, field offsets and constants, plus one function
//! pointer per declared function typed as `sys` declares it, compiled (`cc -fsyntax-only`)
//! with `xeno-config --skin=alchemy --cflags`. A value or a signature that differs from the
//! headers fails the compilation, naming the item.

use std::fmt::Write as _;
use std::io::Write as _;
use std::mem::{align_of, offset_of, size_of};
use std::process::{Command, Stdio};

use rtlat_xenomai_ffi::sys;

/// `(C expression, value the Rust side has)`.
type Fact = (String, u64);

/// Every fact `sys` states.
fn facts() -> Vec<Fact> {
    let mut f: Vec<Fact> = Vec::new();
    macro_rules! layout {
        ($rust:ty, $c:literal, [$($field:ident),*]) => {
            f.push((format!("sizeof({})", $c), size_of::<$rust>() as u64));
            f.push((format!("_Alignof({})", $c), align_of::<$rust>() as u64));
            $(f.push((format!("offsetof({}, {})", $c, stringify!($field)), offset_of!($rust, $field) as u64));)*
        };
    }
    macro_rules! constant {
        ($($name:ident),*) => { $(f.push((stringify!($name).to_string(), sys::$name as u64));)* };
    }
    layout!(sys::RT_TASK, "RT_TASK", [handle, thread]);
    layout!(sys::RT_TASK_INFO, "RT_TASK_INFO", [prio, stat, name, pid]);
    layout!(sys::RT_TIMER_INFO, "RT_TIMER_INFO", [period, date]);
    #[cfg(not(xenomai_cobalt))]
    layout!(
        sys::threadobj_stat,
        "struct threadobj_stat",
        [timeout, cpu, schedlock, status]
    );
    #[cfg(xenomai_cobalt)]
    layout!(
        sys::threadobj_stat,
        "struct threadobj_stat",
        [xtime, timeout, msw, csw, xsc, cpu, schedlock, status, pf]
    );
    f.push(("sizeof(RTIME)".into(), size_of::<sys::RTIME>() as u64));
    f.push(("sizeof(SRTIME)".into(), size_of::<sys::SRTIME>() as u64));
    f.push((
        "sizeof(((RT_TASK_INFO *)0)->name)".into(),
        sys::XNOBJECT_NAME_LEN as u64,
    ));
    constant!(
        T_LOPRIO,
        T_HIPRIO,
        T_LOCK,
        T_WARNSW,
        T_CONFORMING,
        T_JOINABLE
    );
    constant!(TM_INFINITE, TM_NOW, TM_NONBLOCK, XNOBJECT_NAME_LEN);
    #[cfg(xenomai_cobalt)]
    constant!(
        _CC_COBALT_GET_VERSION,
        _CC_COBALT_GET_CORE_STATUS,
        COBALT_STATE_DISABLED,
        COBALT_STATE_RUNNING,
        COBALT_STATE_STOPPED,
        COBALT_STATE_TEARDOWN,
        COBALT_STATE_WARMUP
    );
    f
}

/// The C types of the functions `sys` declares, as `sys` declares them (Rust → C:
/// `*mut RT_TASK` → `RT_TASK *`, `c_ulong` → `unsigned long`, `u64` → `unsigned long long`).
const FUNCTIONS: &[(&str, &str)] = &[
    (
        "rt_task_create",
        "int (*)(RT_TASK *, const char *, int, int, int)",
    ),
    (
        "rt_task_start",
        "int (*)(RT_TASK *, void (*)(void *), void *)",
    ),
    (
        "rt_task_shadow",
        "int (*)(RT_TASK *, const char *, int, int)",
    ),
    ("rt_task_join", "int (*)(RT_TASK *)"),
    ("rt_task_delete", "int (*)(RT_TASK *)"),
    (
        "rt_task_set_periodic",
        "int (*)(RT_TASK *, unsigned long long, unsigned long long)",
    ),
    ("rt_task_wait_period", "int (*)(unsigned long *)"),
    ("rt_task_sleep_until", "int (*)(unsigned long long)"),
    ("rt_task_set_priority", "int (*)(RT_TASK *, int)"),
    (
        "rt_task_set_affinity",
        "int (*)(RT_TASK *, const cpu_set_t *)",
    ),
    ("rt_task_inquire", "int (*)(RT_TASK *, RT_TASK_INFO *)"),
    ("rt_task_self", "RT_TASK *(*)(void)"),
    ("rt_timer_inquire", "void (*)(RT_TIMER_INFO *)"),
    (
        "clockobj_get_time",
        "unsigned long long (*)(struct clockobj *)",
    ),
    ("xenomai_init", "void (*)(int *, char *const **)"),
    #[cfg(xenomai_cobalt)]
    ("cobalt_corectl", "int (*)(int, void *, size_t)"),
    #[cfg(xenomai_cobalt)]
    ("cobalt_read_ns", "unsigned long long (*)(void)"),
];

/// The probe: headers, one assert per fact, one typed pointer per function.
fn probe_source(facts: &[Fact], functions: &[(&str, &str)]) -> String {
    let mut c = String::from(
        "#include <stddef.h>\n#include <alchemy/task.h>\n#include <alchemy/timer.h>\n\
         #include <copperplate/clockobj.h>\n#include <xenomai/init.h>\n",
    );
    if cfg!(xenomai_cobalt) {
        c.push_str("#include <sys/cobalt.h>\n#include <cobalt/uapi/corectl.h>\n");
    }
    for (expr, value) in facts {
        writeln!(
            c,
            "_Static_assert((unsigned long long)({expr}) == {value}ULL, \"sys: {expr} is not {value}\");"
        )
        .unwrap();
    }
    c.push_str("extern struct clockobj alchemy_clock;\n");
    for (i, (name, ty)) in functions.iter().enumerate() {
        // `typeof` a pointer of the declared type, initialised with the real function: a
        // different signature is an incompatible-pointer error.
        writeln!(
            c,
            "__attribute__((unused)) static __typeof__({ty}) check_{i}_{name} = {name};"
        )
        .unwrap();
    }
    c
}

/// Compiles `source` with the Xenomai cflags: `Ok`, or the compiler's messages.
fn compile(source: &str) -> Result<(), String> {
    let Some(cflags) = option_env!("RTLAT_XENO_CFLAGS") else {
        panic!("built without Xenomai: no cflags");
    };
    let mut child = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(cflags.split_whitespace())
        .args([
            "-std=gnu11",
            "-Werror",
            "-Wincompatible-pointer-types",
            "-fsyntax-only",
            "-x",
            "c",
            "-",
        ])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("a C compiler (cc, or $CC)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(source.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

pub fn matches_the_headers() {
    let facts = facts();
    assert!(facts.len() > 30, "{} facts", facts.len());
    if let Err(messages) = compile(&probe_source(&facts, FUNCTIONS)) {
        panic!("sys differs from the Xenomai headers:\n{messages}");
    }
}

/// The probe is not vacuous: one wrong value, and one wrong signature, each fail it by name.
pub fn a_wrong_value_fails() {
    let mut facts = facts();
    let joinable = facts.iter_mut().find(|(e, _)| e == "T_JOINABLE").unwrap();
    joinable.1 += 1;
    let messages =
        compile(&probe_source(&facts, FUNCTIONS)).expect_err("a wrong T_JOINABLE compiles");
    assert!(messages.contains("sys: T_JOINABLE is not"), "{messages}");

    let mut facts = self::facts();
    let size = facts
        .iter_mut()
        .find(|(e, _)| e == "sizeof(RT_TASK)")
        .unwrap();
    size.1 = 8;
    let messages =
        compile(&probe_source(&facts, FUNCTIONS)).expect_err("a wrong sizeof(RT_TASK) compiles");
    assert!(
        messages.contains("sys: sizeof(RT_TASK) is not 8"),
        "{messages}"
    );

    let mut functions = FUNCTIONS.to_vec();
    let wait = functions
        .iter_mut()
        .find(|(n, _)| *n == "rt_task_wait_period")
        .unwrap();
    wait.1 = "int (*)(unsigned int *)";
    let wrong = probe_source(&self::facts(), &functions);
    let messages = compile(&wrong).expect_err("a wrong rt_task_wait_period type compiles");
    let line = 1 + wrong
        .lines()
        .position(|l| l.contains("_rt_task_wait_period ="))
        .unwrap();
    assert!(
        messages.contains(&format!("<stdin>:{line}:")),
        "line {line}: {messages}"
    );
    assert!(messages.contains("incompatible pointer type"), "{messages}");
}
