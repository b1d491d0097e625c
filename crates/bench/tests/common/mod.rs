#![allow(dead_code)]

pub mod peers;
pub mod walker;
