pub fn corpus() -> Vec<Vec<u8>> {
    Vec::new()
}
