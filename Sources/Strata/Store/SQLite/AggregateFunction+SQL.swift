extension AggregateFunction {
    /// The SQL aggregate that computes it over a column: SQLite's own where it has one, else the
    /// one every connection registers (``Database/registerStrataAggregates()``). A sum is
    /// `TOTAL`, which gives 0 rather than NULL when there are no values, as `@sum` of an empty
    /// to-many is 0; a dictionary fetch sums with `SUM` instead, to keep integers integers.
    var sqlFunction: String {
        switch self {
        case .count: "COUNT"
        case .sum: "TOTAL"
        case .average: "AVG"
        case .min: "MIN"
        case .max: "MAX"
        case .stddev: "strata_stddev"
        case .median: "strata_median"
        case .mode: "strata_mode"
        }
    }
}
