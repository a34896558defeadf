/// What the objects of one entity in one context share: the link to the context, the entity,
/// and the slots of their values. Each object holds one reference to it.
///
/// An object held the three itself, the slots twice (once in its saved values, once in its
/// changes): 40 bytes of every object where one reference takes 8. A `Person` of five typed
/// attributes fits in a 128-byte block instead of 160 (BENCHMARKS.md, the stop after
/// 651925f). Holding the slots once also means an object's saved values and its changes are
/// always numbered alike.
final class ObjectBinding: @unchecked Sendable {
    // Sendable as its parts are: all three are set once and never written.

    /// What the objects reach their context through.
    let link: ContextLink
    /// The objects' entity.
    let entity: EntityDescription
    /// The numbers of the entity's properties in the objects' values, from the context's model.
    let slots: PropertySlots

    init(link: ContextLink, entity: EntityDescription, slots: PropertySlots) {
        self.link = link
        self.entity = entity
        self.slots = slots
    }
}
