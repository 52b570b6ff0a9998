//! The discipline a queue's table names: a registered one (`spec.rs`) or, when none has the
//! name, a Python plug-in (`external.rs`). The scenario builder asks here, so that neither
//! the registry nor the plug-ins need to know of the other.

use super::spec::{self, QueueContext, SettingError, Table};
use super::{external, Discipline};
use crate::settings::external::Site;
use crate::settings::table::one_of;

/// Builds the discipline `name` from `table`, the discipline's own keys of a queue's table
/// (`common` lists the keys every queue has besides, for the message about an unknown key).
/// A name no registration has may be a plug-in's (`external.rs`), built for `site` with the
/// whole table.
pub fn build(name: &str, table: &Table, ctx: &QueueContext, common: &[&str], site: impl FnOnce() -> Site) -> Result<Discipline, SettingError> {
    let Some(reg) = spec::find(name) else {
        if let Some(plugin) = external::PLUGINS.find(name) {
            return Ok(Discipline::External(Box::new(external::External(plugin.build(table, ctx, site())?))));
        }
        let plugins = external::PLUGINS.names();
        let names: Vec<String> = super::REGISTRY.iter().map(|r| r.name).chain(plugins.iter().map(String::as_str)).map(|n| format!("{n:?}")).collect();
        let all = super::REGISTRY.iter().flat_map(|r| std::iter::once(r.name).chain(r.aliases.iter().copied()));
        let hint = crate::settings::error::did_you_mean(name, all).map_or_else(String::new, |m| format!(": did you mean {m:?}?"));
        return Err(SettingError::new("discipline", format!("unknown discipline {name:?}{hint} (expected {})", one_of(&names, "or"))));
    };
    let own = (reg.keys)();
    if let Some(key) = table.keys().find(|k| !own.contains(&k.as_str())) {
        return Err(SettingError::new(key.as_str(), spec::misplaced(key, name, &own, common)));
    }
    (reg.build)(table, ctx)
}

#[cfg(test)]
mod tests {
    /// The place of a plug-in discipline (none of these tests builds one).
    fn site() -> Site {
        Site { name: "l".into(), rng: crate::sim::Rng::from_seed(1) }
    }

    use super::super::Limit;
    use super::spec::find;
    use super::*;
    fn table(text: &str) -> Table {
        text.parse().unwrap()
    }

    #[test]
    fn every_registered_discipline_builds_from_its_keys() {
        let ctx = QueueContext { link_bps: 10_000_000, limit: Limit::Packets(100), profile: Default::default(), delay: crate::sim::Dur::ZERO };
        let given = table("min_th = 5\nmax_th = 15\nrisk_th = 20\nk = 20");
        for reg in super::super::REGISTRY {
            let keys = (reg.keys)();
            let mine: Table = given.iter().filter(|(k, _)| keys.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
            assert!(build(reg.name, &mine, &ctx, &[], site).is_ok(), "{}", reg.name);
            for alias in reg.aliases {
                assert_eq!(find(alias).unwrap().name, reg.name);
            }
        }
    }

    #[test]
    fn names_and_keys_are_unique_where_they_must_be() {
        let mut names: Vec<&str> = super::super::REGISTRY.iter().flat_map(|r| std::iter::once(r.name).chain(r.aliases.iter().copied())).collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "a name selects one discipline");
        for reg in super::super::REGISTRY {
            let mut keys = (reg.keys)();
            let n = keys.len();
            keys.sort_unstable();
            keys.dedup();
            assert_eq!(keys.len(), n, "{} reads a key twice", reg.name);
        }
    }

    #[test]
    fn a_key_of_another_discipline_says_which_take_it() {
        let ctx = QueueContext { link_bps: 10_000_000, limit: Limit::Packets(100), profile: Default::default(), delay: crate::sim::Dur::ZERO };
        let err = |name: &str, text: &str| build(name, &table(text), &ctx, &["limit", "signal"], site).unwrap_err();
        assert_eq!(err("droptail", "max_p = 0.1"), SettingError::new("max_p", "only for the RED family (red, ared, rtred), not for discipline \"droptail\""));
        assert_eq!(
            err("red", "min_th = 5\nmax_th = 15\nrisk_th = 20"),
            SettingError::new("risk_th", "only for discipline \"rtred\", not for discipline \"red\"")
        );
        assert_eq!(
            err("rtred", "min_th = 5\nmax_th = 15\nadapt = \"feng\""),
            SettingError::new("adapt", "only for discipline \"ared\", not for discipline \"rtred\"")
        );
        let e = err("red", "min_th = 5\nmax_th = 15\nmax_pp = 0.1");
        assert_eq!(e.key, "max_pp");
        assert!(e.message.starts_with("unknown field `max_pp`: discipline \"red\" takes `min_th`, `max_th`, `max_p`"), "{e}");
        assert!(e.message.ends_with("and every queue takes `limit`, `signal`"), "{e}");
        assert_eq!(err("taildrop", "w_q = 0.1").message, "only for the RED family (red, ared, rtred), not for discipline \"taildrop\"");
        let e = err("droptail", "limt = 5");
        assert_eq!(e.message, "unknown field `limt`: discipline \"droptail\" takes none of its own, and every queue takes `limit`, `signal`");
        let e = err("fifo9", "");
        assert_eq!(e.key, "discipline");
        // Every registered name, the last after "or" (the tests register the walk-through's too).
        let last = super::super::REGISTRY.last().unwrap().name;
        assert!(
            e.message.starts_with("unknown discipline \"fifo9\" (expected \"droptail\", \"red\", \"ared\", \"rtred\", \"step\", \"pie\", \"codel\""),
            "{e}"
        );
        assert!(e.message.ends_with(&format!(" or \"{last}\")")), "{e}");
    }

    #[test]
    fn a_misspelt_discipline_gets_the_one_probably_meant() {
        let ctx = QueueContext { link_bps: 10_000_000, limit: Limit::Packets(100), profile: Default::default(), delay: crate::sim::Dur::ZERO };
        let e = build("fq-codel", &Table::new(), &ctx, &[], site).unwrap_err();
        assert!(e.message.starts_with("unknown discipline \"fq-codel\": did you mean \"fq_codel\"? (expected \"droptail\""), "{e}");
        assert!(build("blue", &Table::new(), &ctx, &[], site).unwrap_err().message.starts_with("unknown discipline \"blue\" (expected"));
    }
}
