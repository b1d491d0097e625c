#![allow(dead_code)]

pub mod walker;
