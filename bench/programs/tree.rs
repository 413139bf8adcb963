// SPDX-License-Identifier: MIT
// tree.rs: bench program - a Rust workload whose hot functions are not
// leaves: a random expression tree evaluated recursively through helpers
// that can panic (panic=unwind, as in any default Rust build).  argv[1]
// rounds (default 200); prints the traced calls it made ("calls N").
use std::cell::Cell;

thread_local!(static CALLS: Cell<u64> = Cell::new(0));

fn count() {
    CALLS.with(|c| c.set(c.get() + 1));
}

struct Node {
    op: u64,
    val: i64,
    kids: Option<(Box<Node>, Box<Node>)>,
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[inline(never)]
fn checked_div(a: i64, b: i64) -> i64 {
    count();
    if b == 0 {
        panic!("division by zero");
    }
    a / b
}

#[inline(never)]
fn apply(op: u64, a: i64, b: i64) -> i64 {
    count();
    match op {
        0 => a.wrapping_add(b),
        1 => a.wrapping_sub(b),
        2 => a.wrapping_mul(b) % 1000003,
        _ => checked_div(a, b | 1),
    }
}

#[inline(never)]
fn leaf_value(n: &Node) -> i64 {
    count();
    n.val
}

#[inline(never)]
fn eval(n: &Node) -> i64 {
    count();
    match &n.kids {
        None => leaf_value(n),
        Some((l, r)) => apply(n.op, eval(l), eval(r)),
    }
}

#[inline(never)]
fn build(rng: &mut Rng, depth: i64) -> Box<Node> {
    let op = rng.next() % 4;
    let val = (rng.next() % 1000) as i64;
    let kids = if depth > 0 {
        let skip = (rng.next() % 2) as i64;
        let l = build(rng, depth - 1 - skip);
        Some((l, build(rng, depth - 1)))
    } else {
        None
    };
    Box::new(Node { op, val, kids })
}

fn main() {
    let rounds: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(200);
    let mut rng = Rng(88172645463325252);
    let root = build(&mut rng, 10);
    let mut sum: i64 = 0;
    for _ in 0..rounds {
        sum = sum.wrapping_add(eval(&root));
    }
    println!("sum {}\ncalls {}", sum, CALLS.with(|c| c.get()) + 1);
}
