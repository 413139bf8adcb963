// SPDX-License-Identifier: MIT
// main.rs: a Rust target for docs/targets.md, built by cargo with
// -Zinstrument-xray=always.  The crate's own functions get sleds (std's do
// not, except generic code instantiated here: the test leaves core::,
// alloc::, std:: out with -N).  Prints `COUNT <tid> <name> <n>` per
// function, as the test fixtures do.
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

extern "C" {
    fn gettid() -> i32;
}

static N_MAIN: AtomicU64 = AtomicU64::new(0);
static N_CHECKSUM: AtomicU64 = AtomicU64::new(0);
static N_SQUARE: AtomicU64 = AtomicU64::new(0);

trait Shape {
    fn area(&self) -> u64;
}

struct Square(u64);

impl Shape for Square {
    #[inline(never)]
    fn area(&self) -> u64 {
        N_SQUARE.fetch_add(1, Ordering::Relaxed);
        self.0 * self.0
    }
}

#[inline(never)]
fn checksum(shapes: &[&dyn Shape]) -> u64 {
    N_CHECKSUM.fetch_add(1, Ordering::Relaxed);
    shapes.iter().map(|s| s.area()).sum()
}

fn main() {
    N_MAIN.fetch_add(1, Ordering::Relaxed);
    let rounds: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(50);
    let squares: Vec<Square> = (0..8).map(Square).collect();
    let shapes: Vec<&dyn Shape> = squares.iter().map(|s| s as &dyn Shape).collect();
    let mut total = 0;
    for _ in 0..rounds {
        total += checksum(black_box(&shapes));
    }
    println!("total {total}");
    let tid = unsafe { gettid() };
    println!("COUNT {tid} tiny_cargo::main {}", N_MAIN.load(Ordering::Relaxed));
    println!("COUNT {tid} tiny_cargo::checksum {}", N_CHECKSUM.load(Ordering::Relaxed));
    println!(
        "COUNT {tid} <tiny_cargo::Square as tiny_cargo::Shape>::area {}",
        N_SQUARE.load(Ordering::Relaxed)
    );
}
