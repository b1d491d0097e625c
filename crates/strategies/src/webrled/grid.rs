//! WebRLED's grid action values (DESIGN 7.4): the whole page, in normalised coordinates,
//! is an N x N lattice of cells; an element's action covers the cells whose centres lie
//! within R cell lengths of its centre, each weighted beta = 1 - d / R (closer cells weigh
//! more). `back` has no place on the page and gets a slot of its own after the cells.

use wayfarer_core::{Action, ActionKind, Observation};

/// Cells an action covers: (slot, beta).
pub type Cover = Vec<(usize, f32)>;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    n: usize,
    radius: f64,
}

impl Grid {
    pub fn new(n: usize, radius: f64) -> Grid {
        Grid {
            n: n.max(1),
            radius: radius.max(0.5),
        }
    }

    /// Slots of the network's output: the cells and `back`.
    pub fn slots(&self) -> usize {
        self.n * self.n + 1
    }

    pub fn back_slot(&self) -> usize {
        self.n * self.n
    }

    /// The cells within the radius of (`x`, `y`), both in [0, 1] of the page (clamped),
    /// row-major (`row * N + column`), with their weights.
    pub fn cover_point(&self, x: f64, y: f64) -> Cover {
        let n = self.n as f64;
        // In cell lengths: cell (c, r) has its centre at (c + 0.5, r + 0.5).
        let px = x.clamp(0.0, 1.0) * n;
        let py = y.clamp(0.0, 1.0) * n;
        let reach = self.radius.ceil() as i64 + 1;
        let (cx, cy) = (px.floor() as i64, py.floor() as i64);
        let mut out = Vec::new();
        for r in (cy - reach).max(0)..=(cy + reach).min(self.n as i64 - 1) {
            for c in (cx - reach).max(0)..=(cx + reach).min(self.n as i64 - 1) {
                let d = ((c as f64 + 0.5 - px).powi(2) + (r as f64 + 0.5 - py).powi(2)).sqrt();
                if d <= self.radius {
                    out.push((
                        r as usize * self.n + c as usize,
                        (1.0 - d / self.radius) as f32,
                    ));
                }
            }
        }
        out
    }

    /// The cover of an action on `obs`: its element's centre over the page's size (the
    /// viewport's when the page reports none); `back` its own slot; an action whose
    /// element is missing the page's centre.
    pub fn cover(&self, obs: &Observation, action: &Action) -> Cover {
        if action.kind == ActionKind::Back {
            return vec![(self.back_slot(), 1.0)];
        }
        let w = if obs.page.width > 0.0 {
            obs.page.width
        } else {
            obs.viewport.width
        };
        let h = if obs.page.height > 0.0 {
            obs.page.height
        } else {
            obs.viewport.height
        };
        let (x, y) = action
            .target
            .as_deref()
            .and_then(|t| obs.element(t))
            .map(|e| e.rect.center())
            .filter(|_| w > 0.0 && h > 0.0)
            .map_or((0.5, 0.5), |(cx, cy)| (cx / w, cy / h));
        self.cover_point(x, y)
    }
}

/// An action's value: the sum of its cells' values (the paper's upsampling).
pub fn value(values: &[f32], cover: &Cover) -> f32 {
    cover
        .iter()
        .map(|(i, _)| values.get(*i).copied().unwrap_or(0.0))
        .sum()
}

/// What an action is worth as the next state's best, for the bootstrap target: the mean
/// of its cells. The sum would feed ~7 cells' worth of value back into every cell and
/// grow without bound (gamma x 7 > 1); the mean keeps the update a contraction. Also an
/// action's value with `action_value = "mean"`.
pub fn mean_value(values: &[f32], cover: &Cover) -> f32 {
    if cover.is_empty() {
        0.0
    } else {
        value(values, cover) / cover.len() as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::{Element, Rect, Size};

    #[test]
    fn a_point_at_a_cell_centre_covers_its_neighbours_within_the_radius() {
        let g = Grid::new(20, 1.5);
        // The centre of cell (column 5, row 5).
        let cover = g.cover_point(5.5 / 20.0, 5.5 / 20.0);
        let at = |c: usize, r: usize| cover.iter().find(|(i, _)| *i == r * 20 + c).map(|x| x.1);
        assert_eq!(at(5, 5), Some(1.0));
        // d = 1: beta = 1 - 1/1.5.
        assert!((at(6, 5).unwrap() - (1.0 - 1.0 / 1.5) as f32).abs() < 1e-6);
        assert!((at(5, 4).unwrap() - (1.0 - 1.0 / 1.5) as f32).abs() < 1e-6);
        // d = sqrt(2) = 1.414 <= 1.5: covered, barely.
        let diag = at(6, 6).unwrap();
        assert!((diag - (1.0 - 2f64.sqrt() / 1.5) as f32).abs() < 1e-6);
        // d = 2: outside.
        assert_eq!(at(7, 5), None);
        assert_eq!(cover.len(), 9);
        // Closer cells weigh more.
        assert!(at(5, 5) > at(6, 5) && at(6, 5) > Some(diag));
    }

    #[test]
    fn corners_are_clipped_and_points_between_cells_share() {
        let g = Grid::new(20, 1.5);
        let corner = g.cover_point(0.0, 0.0);
        // From the page's corner (0, 0): cells (0,0) at d=0.707, (1,0) and (0,1) at 1.58.
        assert_eq!(corner.len(), 1);
        assert_eq!(corner[0].0, 0);
        let beyond = g.cover_point(2.0, -1.0);
        assert_eq!(beyond, g.cover_point(1.0, 0.0));
        // On the corner shared by four cells: all four at the same distance.
        let mid = g.cover_point(0.5, 0.5);
        let near: Vec<_> = mid.iter().filter(|(_, b)| *b > 0.5).collect();
        assert_eq!(near.len(), 4);
        assert!(near.windows(2).all(|w| (w[0].1 - w[1].1).abs() < 1e-6));
    }

    #[test]
    fn elements_are_placed_on_the_whole_page_and_back_has_its_slot() {
        let g = Grid::new(10, 1.5);
        let obs = Observation {
            page: Size {
                width: 1000.0,
                height: 4000.0,
            },
            viewport: Size {
                width: 1000.0,
                height: 800.0,
            },
            elements: vec![Element {
                locator: "#far".into(),
                rect: Rect {
                    x: 940.0,
                    y: 3900.0,
                    width: 20.0,
                    height: 20.0,
                },
                ..Element::default()
            }],
            ..Observation::default()
        };
        let cover = g.cover(&obs, &Action::on(ActionKind::Click, "#far"));
        // Centre (950, 3910) -> (0.95, 0.9775): cell column 9, row 9.
        assert!(cover.iter().any(|(i, b)| *i == 99 && *b > 0.8));
        assert_eq!(g.cover(&obs, &Action::back()), vec![(100, 1.0)]);
        assert_eq!(g.slots(), 101);
        let values: Vec<f32> = (0..101).map(|i| i as f32).collect();
        let c = vec![(1, 1.0), (3, 0.5)];
        assert_eq!(value(&values, &c), 4.0);
        assert_eq!(mean_value(&values, &c), 2.0);
        assert_eq!(mean_value(&values, &Vec::new()), 0.0);
    }
}
