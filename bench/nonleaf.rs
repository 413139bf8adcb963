// SPDX-License-Identifier: MIT
//! nonleaf.rs: benchmark program - Rust whose hot functions are not leaves:
//! a recursive evaluation of a binary expression tree whose nodes call
//! helpers that can panic (checked arithmetic), built with panic=unwind as
//! every default Rust build is.  Prints the result and the number of
//! instrumented calls it made.
use std::cell::Cell;

thread_local! { static CALLS: Cell<u64> = const { Cell::new(0) }; }

fn hit() {
    CALLS.with(|c| c.set(c.get() + 1));
}

enum Node {
    Leaf(i64),
    Op(bool, Box<Node>, Box<Node>),
}

#[inline(never)]
fn check(v: i64) -> i64 {
    hit();
    if v == -1234567 {
        panic!("bad value");
    }
    v
}

#[inline(never)]
fn combine(add: bool, a: i64, b: i64) -> i64 {
    hit();
    check(if add { a.wrapping_add(b) } else { a ^ b })
}

#[inline(never)]
fn eval(n: &Node) -> i64 {
    hit();
    match n {
        Node::Leaf(v) => check(*v),
        Node::Op(add, l, r) => combine(*add, eval(l), eval(r)),
    }
}

#[inline(never)]
fn build(depth: u32, seed: i64) -> Node {
    hit();
    if depth == 0 {
        return Node::Leaf(seed);
    }
    Node::Op(
        seed & 1 == 1,
        Box::new(build(depth - 1, seed.wrapping_mul(3) + 1)),
        Box::new(build(depth - 1, seed.wrapping_mul(5) + 2)),
    )
}

fn main() {
    let rounds: u32 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(60);
    let root = build(12, 1);
    let mut sum: i64 = 0;
    for _ in 0..rounds {
        sum = sum.wrapping_add(eval(&root));
    }
    println!("result {} calls {}", sum, CALLS.with(|c| c.get()));
}
