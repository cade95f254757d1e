//! `serde::Serialize` for the report types. A histogram serializes its layout, its exact
//! summary and its non-empty buckets only (underflow and overflow included), so a mostly
//! empty 3840-bucket histogram stays small in JSON.

use crate::Histogram;
use crate::cycle::Sample;
use crate::histogram::{Bucket, Layout, Linear, LogLinear, Storage, SymmetricLogLinear};
use crate::jitter::JitterReport;
use crate::stats::{Stats, Summary};
use serde::ser::{Serialize, SerializeStruct, Serializer};

impl Serialize for Summary {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Summary", 4)?;
        st.serialize_field("count", &self.count())?;
        st.serialize_field("min", &self.min())?;
        st.serialize_field("max", &self.max())?;
        st.serialize_field("sum", &self.sum())?;
        st.end()
    }
}

impl Serialize for Stats {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Stats", 5)?;
        st.serialize_field("count", &self.summary().count())?;
        st.serialize_field("min", &self.summary().min())?;
        st.serialize_field("max", &self.summary().max())?;
        st.serialize_field("sum", &self.summary().sum())?;
        st.serialize_field("sum_of_squares", &self.sum_of_squares())?;
        st.end()
    }
}

impl Serialize for Bucket {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Bucket", 3)?;
        st.serialize_field("low", &self.low)?;
        st.serialize_field("high", &self.high)?;
        st.serialize_field("count", &self.count)?;
        st.end()
    }
}

impl<const P: u32> Serialize for LogLinear<P> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("LogLinear", 3)?;
        st.serialize_field("kind", "log-linear")?;
        st.serialize_field("precision", &self.precision())?;
        st.serialize_field("zero", &self.zero())?;
        st.end()
    }
}

impl Serialize for Linear {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Linear", 3)?;
        st.serialize_field("kind", "linear")?;
        st.serialize_field("low", &self.low())?;
        st.serialize_field("width", &self.width())?;
        st.end()
    }
}

/// The non-empty buckets of a histogram, as a sequence.
struct NonEmpty<'a, L: Layout, S: Storage>(&'a Histogram<L, S>);

impl<L: Layout, S: Storage> Serialize for NonEmpty<'_, L, S> {
    fn serialize<Z: Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        s.collect_seq(self.0.buckets())
    }
}

impl<L: Layout + Serialize, S: Storage> Serialize for Histogram<L, S> {
    fn serialize<Z: Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        serialize_histogram(self, self.layout(), s)
    }
}

/// A [`SymmetricLogLinear`] layout has no zero index of its own (value 0 sits in the middle of
/// the histogram's counters): a histogram over it serializes as over the [`LogLinear`] layout
/// it equals, so the JSON is the same either way.
impl<const P: u32, S: Storage> Serialize for Histogram<SymmetricLogLinear<P>, S> {
    fn serialize<Z: Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        let layout = self.layout().at(self.bucket_count() + 2);
        serialize_histogram(self, &layout, s)
    }
}

/// A histogram's fields, with `layout` as the layout that describes it.
fn serialize_histogram<L: Layout, S: Storage, Z: Serializer>(
    h: &Histogram<L, S>,
    layout: &impl Serialize,
    s: Z,
) -> Result<Z::Ok, Z::Error> {
    let mut st = s.serialize_struct("Histogram", 6)?;
    st.serialize_field("layout", layout)?;
    st.serialize_field("buckets_total", &h.bucket_count())?;
    st.serialize_field("summary", h.summary())?;
    st.serialize_field("underflow", &h.underflow())?;
    st.serialize_field("overflow", &h.overflow())?;
    st.serialize_field("buckets", &NonEmpty(h))?;
    st.end()
}

impl Serialize for Sample {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Sample", 4)?;
        st.serialize_field("cycle", &self.cycle)?;
        st.serialize_field("latency_ns", &self.latency_ns)?;
        st.serialize_field("overruns", &self.overruns)?;
        st.serialize_field("wake_ticks", &self.wake_ticks)?;
        st.end()
    }
}

impl Serialize for JitterReport {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("JitterReport", 8)?;
        st.serialize_field("period_ns", &self.period_ns)?;
        st.serialize_field("ticks", &self.ticks)?;
        st.serialize_field("min_interval_ns", &self.min_interval_ns)?;
        st.serialize_field("max_interval_ns", &self.max_interval_ns)?;
        st.serialize_field("max_jitter_ns", &self.max_jitter_ns)?;
        st.serialize_field("lateness", &self.lateness)?;
        st.serialize_field("last_lateness_ns", &self.last_lateness_ns)?;
        st.serialize_field("overruns", &self.overruns)?;
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use crate::DefaultHistogram;

    #[test]
    fn histogram_serializes_non_empty_buckets_only() {
        let mut h = DefaultHistogram::default();
        for v in [5, 5, 1000, -3] {
            h.record(v);
        }
        let json = serde_json::to_value(&h).unwrap();
        assert_eq!(json["layout"]["kind"], "log-linear");
        assert_eq!(json["layout"]["precision"], 6);
        assert_eq!(
            json["layout"]["zero"], 1919,
            "the symmetric layout's zero index"
        );
        assert_eq!(json["summary"]["count"], 4);
        assert_eq!(json["summary"]["min"], -3);
        assert_eq!(json["buckets"].as_array().unwrap().len(), 3);
        assert_eq!(
            json["buckets"][1],
            serde_json::json!({"low": 5, "high": 5, "count": 2})
        );
        assert_eq!(
            json["buckets"][2],
            serde_json::json!({"low": 1000, "high": 1007, "count": 1})
        );
        // The same as the explicit layout it equals.
        let mut explicit =
            crate::LogHistogram::<6, 3840, u32>::new(crate::LogLinear::symmetric(3840)).unwrap();
        for v in [5, 5, 1000, -3] {
            explicit.record(v);
        }
        assert_eq!(serde_json::to_value(&explicit).unwrap(), json);
    }
}
