#include "rebound/failure.hpp"

namespace rebound {
namespace {

// Whether `a` is `b` field for field, text by identity (the same view): a description that a
// classifier copied unchanged from the one an Error carries.
bool same_description(const ErrorDescription& a, const ErrorDescription& b) noexcept {
    const auto same_view = [](std::string_view x, std::string_view y) {
        return x.data() == y.data() && x.size() == y.size();
    };
    return a.category == b.category && same_view(a.sqlstate, b.sqlstate) && a.vendor == b.vendor &&
           a.native_code == b.native_code && same_view(a.error_type, b.error_type) &&
           a.http_status == b.http_status && a.grpc_status == b.grpc_status &&
           same_view(a.message, b.message) && a.server_delay == b.server_delay &&
           a.server_refused == b.server_refused;
}

const ErrorDescription& empty_description() noexcept {
    static const ErrorDescription empty;
    return empty;
}

}  // namespace

Failure Failure::thrown(std::exception_ptr exception, const ErrorDescription& description,
                        const Error* carrier) noexcept {
    std::shared_ptr<const ErrorDescription> owned;
    if (carrier != nullptr && same_description(description, carrier->description())) {
        owned = std::shared_ptr<const ErrorDescription>(std::shared_ptr<const void>(),
                                                        &carrier->description());
    } else {
        try {
            owned = std::make_shared<const ErrorDescription>(description);
        } catch (const std::bad_alloc&) {
            // Out of memory: the carrier's description, or none (category unknown).
            owned = std::shared_ptr<const ErrorDescription>(
                std::shared_ptr<const void>(),
                carrier != nullptr ? &carrier->description() : &empty_description());
        }
    }
    Failure failure;
    ::new (&failure.thrown_) Thrown{std::move(exception), std::move(owned)};
    failure.kind_ = Kind::Thrown;
    return failure;
}

Failure Failure::returned(Error error, const ErrorDescription& description) noexcept {
    if (same_description(description, error.description())) {
        return returned(std::move(error));
    }
    std::shared_ptr<const Changed> changed;
    try {
        changed = std::make_shared<const Changed>(Changed{error, description});
    } catch (const std::bad_alloc&) {
        return returned(std::move(error));  // out of memory: the Error's own description
    }
    Failure failure;
    ::new (&failure.changed_) std::shared_ptr<const Changed>(std::move(changed));
    failure.kind_ = Kind::Changed;
    return failure;
}

const ErrorDescription& Failure::description() const noexcept {
    switch (kind_) {
        case Kind::Thrown:
            return *thrown_.description;
        case Kind::Returned:
            return value_.description();
        case Kind::Changed:
            return changed_->description;
        case Kind::None:
            break;
    }
    return empty_description();
}

const Error* Failure::value() const noexcept {
    switch (kind_) {
        case Kind::Returned:
            return &value_;
        case Kind::Changed:
            return &changed_->value;
        case Kind::None:
        case Kind::Thrown:
            break;
    }
    return nullptr;
}

void Failure::rethrow() const {
    switch (kind_) {
        case Kind::Thrown:
            std::rethrow_exception(thrown_.exception);
        case Kind::Returned:
            throw value_;
        case Kind::Changed:
            throw changed_->value;
        case Kind::None:
            break;
    }
    throw Error(empty_description());
}

void Failure::copy_engaged(const Failure& other) noexcept {
    switch (other.kind_) {
        case Kind::Thrown:
            ::new (&thrown_) Thrown(other.thrown_);
            break;
        case Kind::Returned:
            ::new (&value_) Error(other.value_);
            break;
        case Kind::Changed:
            ::new (&changed_) std::shared_ptr<const Changed>(other.changed_);
            break;
        case Kind::None:
            break;
    }
    kind_ = other.kind_;
}

void Failure::move_engaged(Failure&& other) noexcept {
    switch (other.kind_) {
        case Kind::Thrown:
            ::new (&thrown_) Thrown(std::move(other.thrown_));
            break;
        case Kind::Returned:
            ::new (&value_) Error(std::move(other.value_));
            break;
        case Kind::Changed:
            ::new (&changed_) std::shared_ptr<const Changed>(std::move(other.changed_));
            break;
        case Kind::None:
            break;
    }
    kind_ = other.kind_;
}

void Failure::destroy_engaged() noexcept {
    switch (kind_) {
        case Kind::Thrown:
            thrown_.~Thrown();
            break;
        case Kind::Returned:
            value_.~Error();
            break;
        case Kind::Changed:
            changed_.~shared_ptr();
            break;
        case Kind::None:
            break;
    }
    kind_ = Kind::None;
}

}  // namespace rebound
